#!/usr/bin/python3
"""The console of `krow serve` (docs/console.md) in headless Chromium (Debian's chromium and
chromium-driver, driven by Selenium), against a real broker and a DuckDB warehouse: sign-in
as each role, what each role is offered, forged and CSRF-less posts refused, cookie flags,
sign-out. A screenshot of every page visited goes to $KROW_BROWSER_ARTIFACTS.

Environment: KROW_BINARY (the krow to test), KROW_TEST_BOOTSTRAP (a PLAINTEXT broker),
KROW_BROWSER_ARTIFACTS (where screenshots go; default ./browser-artifacts).
"""

from __future__ import annotations

import http.client
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

KROW = os.environ.get("KROW_BINARY", "build/ci/src/krow")
PRODUCE = os.environ.get("KROW_PRODUCE", "build/ci/bench/bench-produce")
BOOTSTRAP = os.environ.get("KROW_TEST_BOOTSTRAP", "127.0.0.1:9092")
# The broker's SASL_SSL listener, shaped like Confluent Cloud (scripts/kafka.sh): its CA and keys.
SASL_BOOTSTRAP = os.environ.get("KROW_TEST_SASL_BOOTSTRAP", "127.0.0.1:9093")
SERVICES = pathlib.Path(os.environ.get("KROW_SERVICES_DIR", pathlib.Path(__file__).resolve().parents[2] / ".services"))
KAFKA_CA = SERVICES / "kafka" / "tls" / "ca.pem"
ARTIFACTS = pathlib.Path(os.environ.get("KROW_BROWSER_ARTIFACTS", "browser-artifacts"))
PASSWORDS = {"admin": "admin-pass-3k4j5h6g", "editor": "editor-pass-9z8x7c6v", "viewer": "viewer-pass-1q2w3e4r"}


class Console(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.work = pathlib.Path(tempfile.mkdtemp(prefix="krow-browser-"))
        cls.sync_id = "browser" + str(os.getpid())
        cls.topic = f"krow-browser-{os.getpid()}-{int(time.time())}"
        cls.produce(300)
        manifest = cls.work / "sync.yaml"
        manifest.write_text(f"name: {cls.sync_id}\nsource:\n  bootstrap_servers: {BOOTSTRAP}\n"
                            f"topics:\n  names: [\"{cls.topic}\"]\nwarehouse:\n  path: warehouse.duckdb\n")
        config = cls.work / "server.yaml"
        config.write_text(f"listen: 127.0.0.1:0\nstate: serve.db\nsyncs:\n  - manifest: {manifest}\n"
                          f"    schedule: manual\n")
        for role, password in PASSWORDS.items():
            subprocess.run([KROW, "serve", "add-user", role, "--role", role, "--config", str(config)],
                           input=password + "\n", text=True, check=True, capture_output=True)
        cls.err = cls.work / "serve.err"
        with cls.err.open("w") as err:
            cls.serve = subprocess.Popen([KROW, "serve", "--config", str(config)], stdout=subprocess.DEVNULL,
                                         stderr=err, env={**os.environ, "KROW_HOME": str(cls.work / "home")})
        deadline = time.time() + 30
        cls.port = 0
        while time.time() < deadline and not cls.port:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", cls.err.read_text())
            cls.port = int(m.group(1)) if m else 0
            time.sleep(0.1)
        if not cls.port:
            cls.serve.kill()
            raise RuntimeError("krow serve did not start: " + cls.err.read_text())
        cls.base = f"http://127.0.0.1:{cls.port}"
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
            options.add_argument(arg)
        cls.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)

    @classmethod
    def produce(cls, count: int) -> None:
        subprocess.run([PRODUCE, BOOTSTRAP, cls.topic, str(count), "3"], check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.driver.quit()
        cls.serve.send_signal(signal.SIGTERM)
        try:
            cls.serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            cls.serve.kill()
        shutil.rmtree(cls.work, ignore_errors=True)

    def shot(self, name: str) -> None:
        self.driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))

    def sign_in(self, role: str) -> None:
        d = self.driver
        d.delete_all_cookies()
        d.get(self.base + "/sign-in")
        d.find_element(By.ID, "name").send_keys(role)
        d.find_element(By.ID, "password").send_keys(PASSWORDS[role])
        d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait_for_url("/syncs")

    def wait_for_url(self, ending: str) -> None:
        """Until the browser has followed the answer to a page whose URL ends with `ending`."""
        WebDriverWait(self.driver, 15).until(lambda d: d.current_url.endswith(ending) and
                                             d.execute_script("return document.readyState") == "complete")

    def test_each_role_is_offered_what_it_may_do_and_the_api_refuses_the_rest(self) -> None:
        d = self.driver
        d.get(self.base + "/sign-in")
        self.shot("sign-in")
        for role in ("viewer", "editor", "admin"):
            self.sign_in(role)
            self.shot(f"syncs-{role}")
            nav = d.find_element(By.CSS_SELECTOR, "header nav").text
            self.assertEqual("Users" in nav, role == "admin", nav)
            self.assertEqual("New sync" in d.page_source, role != "viewer")
            d.get(f"{self.base}/syncs/{self.sync_id}")
            self.shot(f"sync-{role}")
            self.assertEqual(len(d.find_elements(By.CSS_SELECTOR, "details.actions")), 1 if role == "admin" else 0,
                             role)
            # A viewer's forged post, with the session's own CSRF token: the API refuses it.
            if role == "viewer":
                csrf = d.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
                cookie = d.get_cookie("krow_session")["value"]
                status, body = self.post(f"/syncs/{self.sync_id}/run", {"csrf": csrf}, cookie)
                self.assertEqual(status, 403, body)

    def test_a_form_without_its_csrf_token_is_refused_and_cookies_carry_their_flags(self) -> None:
        self.sign_in("admin")
        cookie = self.driver.get_cookie("krow_session")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        status, body = self.post(f"/syncs/{self.sync_id}/pause", {}, cookie["value"])
        self.assertEqual(status, 403)
        self.assertIn("CSRF", body)
        status, _ = self.post(f"/syncs/{self.sync_id}/pause", {"csrf": "forged"}, cookie["value"])
        self.assertEqual(status, 403)
        # Signing out ends the session: its cookie no longer opens a page.
        self.driver.find_element(By.CSS_SELECTOR, "header form button").click()
        self.wait_for_url("/sign-in")
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/syncs", headers={"Cookie": "krow_session=" + cookie["value"]})
        answer = conn.getresponse()
        conn.close()
        self.assertEqual(answer.status, 303)
        self.assertEqual(answer.getheader("Location"), "/sign-in")

    def test_no_password_in_any_page_source(self) -> None:
        self.sign_in("admin")
        for path in ("/syncs", f"/syncs/{self.sync_id}", "/users", "/tokens", "/sources", "/audit", "/syncs/new"):
            self.driver.get(self.base + path)
            self.shot(path.strip("/").replace("/", "-") or "root")
            for password in PASSWORDS.values():
                self.assertNotIn(password, self.driver.page_source, path)
            # Every field has its label, and the page's main landmark and title are there.
            for field in self.driver.find_elements(By.CSS_SELECTOR, "input:not([type=hidden]), select, textarea"):
                fid = field.get_attribute("id")
                self.assertTrue(fid and self.driver.find_elements(By.CSS_SELECTOR, f"label[for='{fid}']"),
                                f"{path}: a field without a label: {field.get_attribute('outerHTML')}")
            self.assertTrue(self.driver.find_elements(By.TAG_NAME, "main"), path)
            self.assertTrue(self.driver.title, path)

    def test_a_hostile_name_shows_as_text_and_runs_nothing(self) -> None:
        self.sign_in("admin")
        d = self.driver
        d.get(self.base + "/tokens")
        hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        d.find_element(By.ID, "name").send_keys(hostile)
        d.find_element(By.CSS_SELECTOR, "form[action='/tokens'] button").click()
        self.wait_for_url("/tokens")
        token = d.find_element(By.CSS_SELECTOR, ".flash code").text
        self.assertTrue(token.startswith("krow_"), token)
        d.get(self.base + "/tokens")
        self.shot("tokens-hostile")
        self.assertIn(hostile, d.find_element(By.CSS_SELECTOR, "table").text)  # shown as text
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, "table script, table img"), [])
        self.assertEqual(d.execute_script("return typeof window.__krowAlerted"), "undefined")
        # No script ran: an alert would be open now.
        self.assertEqual(len(d.window_handles), 1)
        try:
            d.switch_to.alert.text
            self.fail("an alert is open: the name ran as a script")
        except Exception as e:  # noqa: BLE001 (NoAlertPresentException)
            self.assertIn("NoAlertPresent", type(e).__name__)
        # Once created, the token is shown nowhere: not on the list, not in the audit log.
        for path in ("/tokens", "/audit"):
            d.get(self.base + path)
            self.assertNotIn(token[16:], d.page_source, path)
        # A topic so named in a new sync (Kafka itself refuses such a name): what the page says
        # of it is text.
        d.get(self.base + "/syncs/new")
        self.fill({"name": "hostile", "topics": "<script>alert(3)</script>",
                   "duckdb_path": str(self.work / "hostile.duckdb"), "schedule": "manual"})
        d.find_element(By.XPATH, "//summary[normalize-space()='Or write the whole manifest (YAML)']").click()
        self.fill({"yaml": f"name: hostile\nsource:\n  bootstrap_servers: {BOOTSTRAP}\ntopics:\n"
                           f"  names: [\"<script>alert(3)</script>\"]\nwarehouse:\n  path: {self.work / 'h.duckdb'}\n"})
        d.find_element(By.XPATH, "//button[normalize-space()='Show the plan']").click()
        WebDriverWait(d, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "pre, .error"))
        self.shot("syncs-new-hostile-topic")
        self.assertIn("<script>alert(3)</script>", d.find_element(By.TAG_NAME, "main").text)
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, "main script, main img"), [])
        try:
            d.switch_to.alert.text
            self.fail("an alert is open: the topic name ran as a script")
        except Exception as e:  # noqa: BLE001 (NoAlertPresentException)
            self.assertIn("NoAlertPresent", type(e).__name__)

    def wait_for_text(self, css: str, text: str, seconds: int = 60) -> None:
        """Until the element `css` says `text`, the page refreshing itself (no reload here)."""
        WebDriverWait(self.driver, seconds, poll_frequency=0.5).until(
            lambda d: any(text in e.text for e in d.find_elements(By.CSS_SELECTOR, css)))

    def test_an_admin_runs_the_sync_and_watches_its_lag_then_resyncs_pauses_and_resumes(self) -> None:
        self.sign_in("admin")
        d = self.driver
        d.get(f"{self.base}/syncs/{self.sync_id}")
        d.find_element(By.CSS_SELECTOR, "details.actions summary").click()
        self.shot("sync-actions-open")
        d.find_element(By.XPATH, "//button[normalize-space()='Run now']").click()
        self.wait_for_url("?done=run")
        self.assertIn("A run has started", d.find_element(By.CSS_SELECTOR, ".flash").text)
        # The page refreshes itself: positions appear, and the lag is nothing once the run ends.
        self.wait_for_text("main", "3 partitions, total lag 0 messages")
        self.wait_for_text("main", "success")
        self.shot("sync-after-run")
        # Each recent run links to its record: the summary, and the full record as JSON.
        d.find_element(By.XPATH, "//h2[.='Recent runs']/following-sibling::table[1]//a").click()
        WebDriverWait(d, 15).until(lambda d: "/runs/" in d.current_url)
        self.shot("sync-run")
        self.assertIn(self.topic, d.find_element(By.TAG_NAME, "pre").text)
        d.get(f"{self.base}/syncs/{self.sync_id}")
        # The list of syncs says what the last run wrote and the lag, beside the status.
        d.get(self.base + "/syncs")
        row = f"//tr[td/a[normalize-space()='{self.sync_id}']]"
        WebDriverWait(d, 60, poll_frequency=0.5).until(
            lambda d: [c.text for c in d.find_elements(By.XPATH, row + "/td")][4:6] == ["300", "0"])
        self.shot("syncs-after-run")
        d.get(f"{self.base}/syncs/{self.sync_id}")
        self.assertIn(f"krow-browser-{os.getpid()}", d.find_element(By.XPATH, "//h2[.='Tables']/following-sibling::table[1]").text)
        # New messages: the lag grows on the page, by what was produced.
        self.produce(120)
        self.wait_for_text("main", "total lag 120 messages")
        self.shot("sync-lagging")
        # A full resync says what it does before it is done.
        d.find_element(By.CSS_SELECTOR, "details.actions summary").click()
        d.find_element(By.LINK_TEXT, "Full resync…").click()
        self.wait_for_url("/resync")
        self.assertIn("never removes rows", d.find_element(By.TAG_NAME, "main").text)
        self.shot("sync-resync-confirm")
        d.find_element(By.XPATH, "//button[normalize-space()='Start the full resync']").click()
        self.wait_for_url("?done=resync")
        self.wait_for_text("main", "total lag 0 messages")
        # Pause, then resume.
        WebDriverWait(d, 60).until(lambda d: "running" not in d.find_element(By.CSS_SELECTOR, "dl.facts").text)
        d.find_element(By.CSS_SELECTOR, "details.actions summary").click()
        d.find_element(By.XPATH, "//button[normalize-space()='Pause']").click()
        self.wait_for_url("?done=pause")
        self.assertIn("paused", d.find_element(By.CSS_SELECTOR, "dl.facts").text)
        d.find_element(By.CSS_SELECTOR, "details.actions summary").click()
        d.find_element(By.XPATH, "//button[normalize-space()='Resume']").click()
        self.wait_for_url("?done=resume")
        self.assertNotIn("paused", d.find_element(By.CSS_SELECTOR, "dl.facts").text)

    def fill(self, fields: dict) -> None:
        for name, value in fields.items():
            element = self.driver.find_element(By.ID, name)
            if element.tag_name == "select":
                element.find_element(By.XPATH, f".//option[normalize-space()='{value}']").click()
            else:
                element.clear()
                element.send_keys(value)

    def test_an_editor_connects_a_source_and_creates_a_sync_after_seeing_its_plan(self) -> None:
        self.sign_in("editor")
        d = self.driver
        d.get(self.base + "/sources")
        d.find_element(By.LINK_TEXT, "Connect a source").click()
        self.wait_for_url("/sources/new")
        source = {"name": "cloud", "bootstrap_servers": SASL_BOOTSTRAP, "security_protocol": "SASL_SSL",
                  "sasl_mechanism": "PLAIN", "username": "admin", "password": "not-the-secret",
                  "ca_file": str(KAFKA_CA)}
        self.fill(source)
        d.find_element(By.XPATH, "//button[normalize-space()='Check and save']").click()
        WebDriverWait(d, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".error"))
        self.shot("sources-new-refused")
        error = d.find_element(By.CSS_SELECTOR, ".error").text
        self.assertRegex(error.lower(), "authenticat|sasl|credential", error)
        self.assertEqual(d.find_element(By.ID, "password").get_attribute("value"), "")  # never sent back
        self.assertNotIn("not-the-secret", d.page_source)
        self.fill({"password": "admin-secret"})
        d.find_element(By.XPATH, "//button[normalize-space()='Check and save']").click()
        self.wait_for_url("/sources?saved=cloud")
        self.assertIn("cloud", d.find_element(By.CSS_SELECTOR, "table").text)
        self.assertNotIn("admin-secret", d.page_source)

        d.get(self.base + "/syncs/new")
        self.fill({"name": "from-the-console", "source": "cloud", "topics": self.topic,
                   "duckdb_path": str(self.work / "console.duckdb"), "schedule": "manual"})
        d.find_element(By.XPATH, "//button[normalize-space()='Show the plan']").click()
        WebDriverWait(d, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "pre") or
                                    d.find_elements(By.CSS_SELECTOR, ".error"))
        self.shot("syncs-new-plan")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".error"), [], d.find_element(By.TAG_NAME, "main").text)
        self.assertIn(self.topic, d.find_element(By.CSS_SELECTOR, "pre").text)
        d.find_element(By.XPATH, "//button[normalize-space()='Create the sync']").click()
        self.wait_for_url("/syncs/from-the-console")
        self.shot("sync-created")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, "details.actions"), [])  # an editor starts nothing

        # The editor changes the sync: the plan first, then saved; the page says the new schedule.
        d.find_element(By.LINK_TEXT, "Change the sync").click()
        self.wait_for_url("/syncs/from-the-console/edit")
        self.fill({"schedule": "every 6h"})
        d.find_element(By.XPATH, "//button[normalize-space()='Show the plan']").click()
        WebDriverWait(d, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "pre") or
                                    d.find_elements(By.CSS_SELECTOR, ".error"))
        self.shot("sync-edit-plan")
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".error"), [], d.find_element(By.TAG_NAME, "main").text)
        d.find_element(By.XPATH, "//button[normalize-space()='Save the changes']").click()
        self.wait_for_url("/syncs/from-the-console?done=edit")
        self.assertIn("every 6h", d.find_element(By.CSS_SELECTOR, "dl.facts").text)

    def test_a_password_in_a_saved_manifest_is_never_shown_and_kept_through_a_change(self) -> None:
        # A sync made through the API with its SASL password written in the manifest.
        token = subprocess.run([KROW, "serve", "create-token", "automation", "--role", "admin", "--config",
                                str(self.work / "server.yaml")], check=True, capture_output=True,
                               text=True).stdout.strip().split()[-1]
        secret = "admin-secret"
        manifest = (f"name: literal\nsource:\n  bootstrap_servers: {SASL_BOOTSTRAP}\n  security_protocol: SASL_SSL\n"
                    f"  sasl_mechanism: PLAIN\n  username: admin\n  password: {secret}\n  ca_file: {KAFKA_CA}\n"
                    f"topics:\n  names: [\"{self.topic}\"]\nwarehouse:\n  path: {self.work / 'literal.duckdb'}\n")
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("POST", "/api/v1/syncs", body=json.dumps({"manifest": manifest, "schedule": "manual"}),
                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
        answer = conn.getresponse()
        self.assertEqual(answer.status, 201, answer.read().decode())
        conn.close()

        self.sign_in("editor")
        d = self.driver
        d.get(self.base + "/syncs/literal/edit")
        self.shot("sync-edit")
        self.assertNotIn(secret, d.page_source)
        self.assertIn("password: \"(saved: leave as is to keep it)\"", d.find_element(By.ID, "yaml").get_attribute("value"))
        # The plan connects with the saved password (the mask stands for it), and so does the save.
        self.fill({"schedule": "every 2h"})
        d.find_element(By.XPATH, "//button[normalize-space()='Show the plan']").click()
        WebDriverWait(d, 120).until(lambda d: d.find_elements(By.CSS_SELECTOR, "pre") or
                                    d.find_elements(By.CSS_SELECTOR, ".error"))
        self.assertEqual(d.find_elements(By.CSS_SELECTOR, ".error"), [], d.find_element(By.TAG_NAME, "main").text)
        self.assertIn(self.topic, d.find_element(By.CSS_SELECTOR, "pre").text)
        self.assertNotIn(secret, d.page_source)
        d.find_element(By.XPATH, "//button[normalize-space()='Save the changes']").click()
        self.wait_for_url("/syncs/literal?done=edit")
        saved = (self.work / "api-syncs" / "literal.yaml").read_text()
        self.assertIn(f"password: {secret}", saved)
        self.assertNotIn("saved: leave as is", saved)
        # A viewer is not offered the change, and the API refuses it the manifest.
        self.sign_in("viewer")
        d.get(self.base + "/syncs/literal")
        self.assertEqual(d.find_elements(By.LINK_TEXT, "Change the sync"), [])
        d.get(self.base + "/syncs/literal/edit")
        self.assertTrue(d.find_elements(By.CSS_SELECTOR, ".error"))
        self.assertEqual(d.find_elements(By.ID, "yaml"), [])
        self.assertNotIn(secret, d.page_source)

    def post(self, path: str, form: dict, cookie: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("POST", path, body=urllib.parse.urlencode(form),
                     headers={"Cookie": "krow_session=" + cookie,
                              "Content-Type": "application/x-www-form-urlencoded"})
        answer = conn.getresponse()
        try:
            return answer.status, answer.read().decode()
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
