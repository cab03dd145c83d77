#!/usr/bin/env python3
"""The dashboard in a real browser (Debian's chromium through chromium-driver and selenium).

Starts `storekeeper demo` (a short simulated run on SQLite, then live), signs in with the
sign-in the demo prints, loads every page, checks that charts have data points and that the
Overview's figures equal GET /v1/apps/{appId}/metrics at the same instant, searches a customer,
reads its timeline (events as sentences, raw details with ISO 8601 dates), grants an entitlement
and finds it on the page and in the audit log, creates a viewer and checks what it cannot reach,
posts a form without its CSRF token (refused), runs accessibility checks (labels, headings,
contrast, language) on every page, and saves a screenshot of every page.

    python dashboard-browser-test.py STOREKEEPER_BINARY SCREENSHOT_DIR

Exit 0 when every check passes; the failures are printed otherwise.
"""
import http.cookiejar
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

FAILURES = []


def wait_for(condition, timeout=15):
    """Waits until `condition()` holds (a form's post may still be loading); returns its last value."""
    deadline = time.time() + timeout
    while True:
        try:
            value = condition()
        except Exception:  # the page is between two loads
            value = False
        if value or time.time() > deadline:
            return value
        time.sleep(0.1)


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL", message, flush=True)
    return condition


def start_demo(binary, data_dir):
    process = subprocess.Popen(
        [binary, "demo", "--customers", "80", "--days", "90", "--port", "0", "--quiet", "--data-dir", data_dir],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found = {}
    deadline = time.time() + 600
    for line in process.stdout:
        print("demo |", line.rstrip(), flush=True)
        match = re.search(r"dashboard\s+(http://\S+)/dashboard\s+\(sign in as (\S+) with password (\S+)\)", line)
        if match:
            found.update(base=match.group(1), email=match.group(2), password=match.group(3))
        match = re.search(r"admin key: (sk_demo_\w+)", line)
        if match:
            found["key"] = match.group(1)
        match = re.search(r"/v1/apps/(\w+)/notifications", line)
        if match:
            found["app"] = match.group(1)
        if {"base", "key", "app"} <= found.keys():
            break
        if time.time() > deadline:
            break
    if not {"base", "email", "password", "key", "app"} <= found.keys():
        process.kill()
        raise SystemExit("the demo did not print its dashboard, sign-in and key")
    return process, found


def make_driver():
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000", "--disable-gpu"]:
        options.add_argument(argument)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


ACCESSIBILITY = r"""
const problems = [];
if (!document.documentElement.lang) problems.push('html has no lang');
const h1 = document.querySelectorAll('h1');
if (h1.length !== 1) problems.push('expected one h1, found ' + h1.length);
let last = 0;
for (const h of document.querySelectorAll('h1,h2,h3,h4,h5,h6')) {
  const level = Number(h.tagName[1]);
  if (last && level > last + 1) problems.push('heading jumps from h' + last + ' to h' + level + ': ' + h.textContent.trim());
  if (!h.textContent.trim()) problems.push('empty heading');
  last = level;
}
for (const field of document.querySelectorAll('input, select, textarea')) {
  if (field.type === 'hidden') continue;
  const labelled = (field.id && document.querySelector('label[for="' + field.id + '"]')) || field.getAttribute('aria-label') || field.closest('label');
  if (!labelled) problems.push('field without a label: ' + (field.name || field.outerHTML.slice(0, 60)));
}
for (const button of document.querySelectorAll('button')) {
  if (!button.textContent.trim() && !button.getAttribute('aria-label')) problems.push('button without a name');
}
for (const svg of document.querySelectorAll('svg')) {
  if (!svg.getAttribute('aria-label') && !svg.querySelector('title')) problems.push('chart without a name');
}
for (const a of document.querySelectorAll('a')) {
  if (!a.textContent.trim() && !a.getAttribute('aria-label')) problems.push('link without text: ' + a.href);
}
function rgb(text) { const m = text.match(/[\d.]+/g); return m ? m.slice(0, 4).map(Number) : [0, 0, 0, 1]; }
function luminance([r, g, b]) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
}
function background(element) {
  for (let e = element; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c;
  }
  return [255, 255, 255, 1];
}
let checked = 0;
for (const element of document.querySelectorAll('p, td, th, a, label, button, span, li, dt, dd, h1, h2, h3, caption, figcaption, strong, code')) {
  if (!element.textContent.trim() || element.offsetParent === null) continue;
  const fg = luminance(rgb(getComputedStyle(element).color)), bg = luminance(background(element));
  const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  checked++;
  if (ratio < 4.5) problems.push('contrast ' + ratio.toFixed(2) + ' on ' + element.tagName + ': ' + element.textContent.trim().slice(0, 40));
}
return {problems: problems.slice(0, 20), checked};
"""


class Session:
    """A urllib client carrying the browser's cookies (for posts the browser cannot forge)."""

    def __init__(self, driver, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.cookie = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())

    def post(self, path, fields):
        request = urllib.request.Request(self.base + path, data=urllib.parse.urlencode(fields).encode(), method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        request.add_header("Cookie", self.cookie)
        try:
            with self.opener.open(request) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def api(base, key, path):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + key})
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def main():
    binary, shots = sys.argv[1], sys.argv[2]
    os.makedirs(shots, exist_ok=True)
    data_dir = tempfile.mkdtemp(prefix="sk-browser-")
    demo, found = start_demo(binary, data_dir)
    base, app = found["base"], found["app"]
    driver = make_driver()
    pages = 0

    def visit(path, name):
        nonlocal pages
        driver.get(base + path)
        pages += 1
        driver.save_screenshot(os.path.join(shots, f"{pages:02d}-{name}.png"))
        result = driver.execute_script(ACCESSIBILITY)
        check(not result["problems"], f"{name}: accessibility {result['problems']}")
        check(result["checked"] > 3, f"{name}: too little text to check contrast")
        check("500" not in driver.title and "Internal" not in driver.title, f"{name}: server error page")
        return driver.page_source

    def points():
        return len(driver.find_elements(By.CSS_SELECTOR, "svg .point"))

    try:
        visit("/dashboard/sign-in", "sign-in")
        driver.find_element(By.ID, "email").send_keys(found["email"])
        driver.find_element(By.ID, "password").send_keys(found["password"])
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        check(wait_for(lambda: "/overview" in driver.current_url), "sign-in did not lead to the overview")

        prefix = f"/dashboard/apps/{app}"
        visit(f"{prefix}/overview", "overview")
        at = driver.find_element(By.ID, "as-of").get_attribute("data-at")
        metrics = api(base, found["key"], f"/v1/apps/{app}/metrics?at={urllib.parse.quote(at)}")
        tiles = {t.get_attribute("data-metric"): t.find_element(By.CLASS_NAME, "tile-value").text
                 for t in driver.find_elements(By.CSS_SELECTOR, ".tile")}
        for name in ["activeSubscriptions", "activeTrials", "gracePeriod", "billingRetry"]:
            check(tiles.get(name) == str(metrics[name]), f"overview {name} {tiles.get(name)} != API {metrics[name]}")
        check(tiles.get("mrr") == f"{float(metrics['mrr']):.2f} {metrics['currency']}", f"overview MRR {tiles.get('mrr')} != API {metrics['mrr']}")
        check(metrics["activeSubscriptions"] > 0, "the demo has no active subscriptions")
        check(points() > 0, "overview charts have no points")
        # The revenue tile is the sum of the revenue series the API gives for the same range.
        start = driver.find_element(By.ID, "from").get_attribute("value")
        end = driver.find_element(By.ID, "to").get_attribute("value")
        check(bool(start and end), "overview has no range")

        for metric in ["activeSubscriptions", "revenue", "mrr", "newSubscriptions", "churnRate"]:
            visit(f"{prefix}/charts?metric={metric}", f"chart-{metric}")
            check(points() > 0, f"chart {metric} has no points")
            check(len(driver.find_elements(By.CSS_SELECTOR, "#series tbody tr")) > 0, f"chart {metric} has no table")
        csv_link = driver.find_element(By.PARTIAL_LINK_TEXT, "CSV").get_attribute("href")
        check(csv_link.endswith("") and ".csv?" in csv_link, "no CSV link")

        visit(f"{prefix}/cohorts?from=2020-01-01", "cohorts")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#cohorts tbody tr")) > 0, "cohorts table is empty")

        visit(f"{prefix}/customers", "customers")
        rows = driver.find_elements(By.CSS_SELECTOR, "#customers tbody tr a")
        check(len(rows) > 0, "no customers listed")
        customer = rows[0].text
        driver.find_element(By.ID, "q").send_keys(customer)
        driver.find_element(By.CSS_SELECTOR, "form[role=search] button").click()
        check(wait_for(lambda: "found for" in driver.page_source and customer in [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#customers tbody tr a")]),
              "search did not find the customer")
        driver.save_screenshot(os.path.join(shots, f"{pages:02d}-customers-search.png"))

        visit(f"{prefix}/customers/{urllib.parse.quote(customer)}", "customer")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")) > 0, "customer timeline is empty")
        # Engine events read as sentences (dates as days, prices with currency), the raw details
        # behind a disclosure, where dates are ISO 8601.
        events = [cells for cells in (row.find_elements(By.TAG_NAME, "td") for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tbody tr"))
                  if len(cells) > 2 and cells[1].text == "event"]
        check(len(events) > 0, "the customer timeline has no engine events")
        day = re.compile(r"\b\d{1,2} [A-Z][a-z]{2} \d{4}\b")
        for cells in events:
            words = cells[2].text.replace("Raw details", "").strip()
            check(words and words[0].isalpha() and "{" not in words, f"an event does not read as words: {words!r}")
            if " until " in words or "ends" in words:
                check(day.search(words) is not None, f"an event's date is not a day: {words!r}")
        dated = next((cells[2] for cells in events if day.search(cells[2].text)), None)
        check(dated is not None, "no event of the timeline names a day")
        if dated is not None:
            dated.find_element(By.TAG_NAME, "summary").click()
            raw = dated.find_element(By.TAG_NAME, "pre").text
            check(re.search(r'"(expiresDate|deadline)":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"', raw) is not None,
                  f"the raw details' dates are not ISO 8601: {raw[:300]!r}")
        reason = f"browser test {int(time.time())}"
        driver.find_element(By.ID, "grant-reason").send_keys(reason)
        driver.find_element(By.CSS_SELECTOR, "#grant-form button").click()
        check(wait_for(lambda: "Grant" in driver.find_element(By.TAG_NAME, "h1").text), "no confirmation page for the grant")
        driver.save_screenshot(os.path.join(shots, f"{pages:02d}-customer-confirm.png"))
        driver.find_element(By.ID, "confirm").click()
        check(wait_for(lambda: "The entitlement was granted" in driver.page_source), "the grant is not confirmed on the page")
        check(any(reason in row.text for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")), "the grant is not in the timeline")
        check(any(c.text.startswith("grant:") for c in driver.find_elements(By.CSS_SELECTOR, "#entitlements code")), "the grant is not an entitlement")
        driver.save_screenshot(os.path.join(shots, f"{pages:02d}-customer-granted.png"))

        visit(f"{prefix}/audit", "audit")
        check(any(reason in row.text and found["email"] in row.text for row in driver.find_elements(By.CSS_SELECTOR, "#audit tbody tr")),
              "the grant is not in the audit log under the user's name")

        visit(f"{prefix}/notifications", "notifications")
        links = driver.find_elements(By.CSS_SELECTOR, "#notifications tbody tr a")
        check(len(links) > 0, "no notifications")
        visit(urllib.parse.urlparse(links[0].get_attribute("href")).path, "notification")
        check(len(driver.find_element(By.ID, "payload").text) > 20, "the notification's payload is not shown")

        visit(f"{prefix}/problems?status=all", "problems")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#problems tbody tr")) > 0,
              "no problem listed (the demo's refused customer should have one)")

        page = visit(f"{prefix}/settings", "settings")
        check(found["key"] not in page, "the settings page shows the admin key")
        check("fingerprint" in page, "the settings page does not mask secrets")

        visit(f"{prefix}/offerings", "offerings")
        # The demo saved its own document (a retention placement) first: this save is the next version.
        saved = int(driver.find_element(By.NAME, "expectedVersion").get_attribute("value")) + 1
        area = driver.find_element(By.ID, "document")
        area.clear()
        area.send_keys('{"offerings": [{"id": "default", "packages": [{"id": "monthly", "productId": "premium.monthly"}]}], '
                       '"placements": [{"id": "onboarding", "defaultOffering": "default"}]}')
        driver.find_element(By.ID, "note").send_keys("from the browser test")
        driver.find_element(By.CSS_SELECTOR, "form.offerings-form button[type=submit]").click()
        check(wait_for(lambda: f"Saved version {saved}." in driver.page_source),
              "the offerings were not saved: " + driver.find_element(By.TAG_NAME, "main").text[:300])
        check("from the browser test" in driver.page_source, "the new version is not listed")

        visit(f"{prefix}/users", "users")
        viewer, viewer_password = "viewer@example.com", "viewer-password-1234"
        driver.find_element(By.ID, "user-email").send_keys(viewer)
        driver.find_element(By.ID, "user-role").send_keys("viewer")
        driver.find_element(By.ID, "user-password").send_keys(viewer_password)
        driver.find_element(By.CSS_SELECTOR, "form.card button").click()
        check(wait_for(lambda: viewer in driver.page_source), "the viewer was not saved: " + driver.find_element(By.TAG_NAME, "main").text[:300])

        # A form without its CSRF token is refused.
        admin = Session(driver, base)
        status, _ = admin.post(f"{prefix}/customers/{urllib.parse.quote(customer)}/grant",
                               {"productId": "x", "reason": "no token", "confirm": "yes"})
        check(status == 403, f"a grant without a CSRF token answered {status}")

        driver.find_element(By.CSS_SELECTOR, "header form button").click()
        check(wait_for(lambda: "/sign-in" in driver.current_url), "sign-out did not return to sign-in")
        driver.find_element(By.ID, "email").send_keys(viewer)
        driver.find_element(By.ID, "password").send_keys(viewer_password)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait_for(lambda: "/overview" in driver.current_url)
        page = visit(f"{prefix}/overview", "viewer-overview")
        check("/customers" not in page and "/notifications" not in page, "a viewer sees support links")
        token = driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")
        status, _ = Session(driver, base).post(f"{prefix}/customers/{urllib.parse.quote(customer)}/grant",
                                               {"csrf": token, "productId": "x", "reason": "viewer", "confirm": "yes"})
        check(status == 403, f"a viewer's grant answered {status}")
        driver.get(base + f"{prefix}/customers")
        check("403" in driver.title, "a viewer opened the customers page")

        # Five wrong passwords slow sign-in down (last: it holds this address back for a while).
        driver.get(base + f"{prefix}/overview")
        driver.find_element(By.CSS_SELECTOR, "header form button").click()
        wait_for(lambda: "/sign-in" in driver.current_url)
        for _ in range(6):
            driver.get(base + "/dashboard/sign-in")
            driver.find_element(By.ID, "email").send_keys(viewer)
            driver.find_element(By.ID, "password").send_keys("not the password")
            driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
            wait_for(lambda: "not right" in driver.page_source or "Too many" in driver.page_source)
        check("Too many failed sign-ins" in driver.page_source, "five wrong passwords did not slow sign-in down")
        driver.save_screenshot(os.path.join(shots, f"{pages + 1:02d}-sign-in-throttled.png"))
    finally:
        driver.quit()
        demo.terminate()
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
    print(f"browser: {pages} pages visited, screenshots in {shots}, {len(FAILURES)} failures", flush=True)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
