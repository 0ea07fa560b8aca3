#pragma once
// RAII owners for libcurl's objects, each destroyed with its documented call. Used inside
// src/http/ only: the rest of krow sees http::Client.

#include <curl/curl.h>

#include "util/c_handle.hpp"

namespace krow::http {

using EasyHandle = CHandle<CURL, curl_easy_cleanup>;
using HeaderList = CHandle<curl_slist, curl_slist_free_all>;

// Appends a header line to `list`; false (and `list` unchanged) when libcurl cannot.
inline bool append(HeaderList& list, const char* line) {
  curl_slist* head = curl_slist_append(list.get(), line);
  if (!head) return false;
  (void)list.release();  // `head` is the same list, one line longer (or a new one)
  list.reset(head);
  return true;
}

}  // namespace krow::http
