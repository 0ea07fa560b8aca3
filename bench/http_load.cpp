// HTTP requests per second against one URL path, from THREADS clients each on its own
// keep-alive connection (cpp-httplib), for SECONDS: what `krow serve`'s API answers per second
// (bench/serve.py). Prints one JSON object: requests, seconds, per_second, errors (answers
// other than the expected status, or none), and p50/p99 client latency in milliseconds.
//
//   bench-http-load HOST PORT PATH THREADS SECONDS [HEADER: VALUE ...]

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: bench-http-load HOST PORT PATH THREADS SECONDS [HEADER: VALUE ...]\n");
    return 2;
  }
  const std::string host = argv[1], path = argv[3];
  const int port = std::atoi(argv[2]), threads = std::atoi(argv[4]);
  const double seconds = std::atof(argv[5]);
  httplib::Headers headers;
  for (int i = 6; i < argc; ++i) {
    const std::string h = argv[i];
    const auto colon = h.find(": ");
    if (colon != std::string::npos) headers.emplace(h.substr(0, colon), h.substr(colon + 2));
  }
  std::atomic<long> requests{0}, errors{0};
  std::mutex mu;
  std::vector<double> latencies;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  const auto began = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      httplib::Client client(host, port);
      client.set_keep_alive(true);
      client.set_tcp_nodelay(true);
      std::vector<double> mine;
      while (std::chrono::steady_clock::now() < until) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto answer = client.Get(path, headers);
        mine.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        ++requests;
        if (!answer || answer->status != 200) ++errors;
      }
      std::lock_guard lock(mu);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
    });
  for (auto& t : pool) t.join();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::sort(latencies.begin(), latencies.end());
  auto at = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, static_cast<size_t>(p * latencies.size()))];
  };
  std::printf("{\"requests\": %ld, \"seconds\": %.3f, \"per_second\": %.1f, \"errors\": %ld, \"p50_ms\": %.3f, "
              "\"p99_ms\": %.3f}\n",
              requests.load(), took, requests.load() / took, errors.load(), at(0.50), at(0.99));
  return 0;
}
