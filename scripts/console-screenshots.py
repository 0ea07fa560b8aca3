#!/usr/bin/python3
"""Screenshots of the console's pages for docs/console.md, from a running `krow serve`
(scripts/demo.sh --console): signs in and saves one PNG per page into OUTDIR.

    /usr/bin/python3 scripts/console-screenshots.py http://127.0.0.1:8470 demo "$(cat demo/console-password)" docs/console

Uses Debian's chromium and chromium-driver through python3-selenium (scripts/setup-deps.sh).
"""

import pathlib
import sys

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main() -> None:
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    base, user, password, out = sys.argv[1], sys.argv[2], sys.argv[3], pathlib.Path(sys.argv[4])
    out.mkdir(parents=True, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,800"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        d.get(base + "/sign-in")
        d.save_screenshot(str(out / "sign-in.png"))
        d.find_element(By.ID, "name").send_keys(user)
        d.find_element(By.ID, "password").send_keys(password)
        d.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        WebDriverWait(d, 15).until(lambda d: d.current_url.endswith("/syncs"))
        d.save_screenshot(str(out / "syncs.png"))
        sync = d.find_element(By.CSS_SELECTOR, "tbody a").text
        for name, path in (("sync", f"/syncs/{sync}"), ("sync-actions", f"/syncs/{sync}"),
                           ("resync", f"/syncs/{sync}/resync"), ("sources-new", "/sources/new"),
                           ("syncs-new", "/syncs/new"), ("users", "/users"), ("tokens", "/tokens"),
                           ("audit", "/audit")):
            d.set_window_size(1200, 800)
            d.get(base + path)
            if name == "sync-actions":
                d.find_element(By.CSS_SELECTOR, "details.actions summary").click()
            else:  # the whole page
                d.set_window_size(1200, min(2400, max(800, d.execute_script(
                    "return document.documentElement.scrollHeight") + 100)))
            d.save_screenshot(str(out / f"{name}.png"))
    finally:
        d.quit()


if __name__ == "__main__":
    main()
