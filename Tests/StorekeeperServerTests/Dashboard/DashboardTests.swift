import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Dashboard: sign-in, roles, CSRF, pages and support actions")
struct DashboardTests {
    static let password = "correct horse battery staple"

    static func addUser(_ harness: ServerHarness, _ email: String, _ role: DashboardUser.Role, apps: [String]? = nil) async throws {
        try await harness.store.saveDashboardUser(
            DashboardUser(
                email: email, passwordHash: try PasswordHash.make(password), role: role, apps: apps, createdAt: Fixture.t0, updatedAt: Fixture.t0))
    }

    /// A customer of alpha with a monthly subscription and a renewal notification.
    static func seed(_ harness: ServerHarness, _ client: any TestClientProtocol) async throws {
        let t0 = Fixture.t0
        let first = try SignedData.transaction(id: "7001", original: "7001", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0)
        harness.clock.set(t0 + 60)
        let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(first))\"}"
        #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: body).status == 200)
        let renewed = try SignedData.transaction(
            id: "7002", original: "7001", purchase: t0 + 30 * Fixture.day, expires: t0 + 60 * Fixture.day, signed: t0 + 30 * Fixture.day)
        let renewal = try SignedData.renewal(original: "7001", autoRenew: true, signed: t0 + 30 * Fixture.day)
        harness.clock.set(t0 + 30 * Fixture.day + 60)
        let notification = try SignedData.notification(
            harness.ca, type: "DID_RENEW", signed: t0 + 30 * Fixture.day, transaction: renewed, renewal: renewal)
        #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: notification).status == 200)
        try await harness.processor.drain()
    }

    @Test("sign-in sets a HttpOnly, SameSite=Strict session cookie (Secure behind TLS); sign-out ends the session")
    func signInAndOut() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "ops@example.com", .admin)
            let browser = DashboardBrowser(client)
            // Not signed in: pages send the visitor to sign in, and come back after.
            let first = try await browser.get("/dashboard/apps/alpha/overview")
            #expect(first.status == 303)
            #expect(first.location == "/dashboard/sign-in?next=%2Fdashboard%2Fapps%2Falpha%2Foverview")
            browser.forwardedProto = "https"
            let signedIn = try await browser.signIn("OPS@example.com", Self.password)
            #expect(signedIn.status == 303 && signedIn.location == "/dashboard")
            let cookie = try #require(browser.setCookieHeaders.last { $0.hasPrefix("storekeeper_session=") && !$0.contains("Max-Age=0") })
            #expect(
                cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Secure") && cookie.contains("Path=/dashboard"))
            let home = try await browser.get("/dashboard")
            #expect(home.status == 303 && home.location == "/dashboard/apps/alpha/overview")
            let overview = try await browser.get("/dashboard/apps/alpha/overview")
            #expect(overview.status == 200)
            #expect(overview.headers[.init("Content-Security-Policy")!]?.contains("default-src 'none'") == true)
            #expect(overview.headers[.init("X-Frame-Options")!] == "DENY")
            // Without TLS the cookie is not marked Secure.
            let plain = DashboardBrowser(client)
            try await plain.signIn("ops@example.com", Self.password)
            #expect(plain.setCookieHeaders.contains { $0.hasPrefix("storekeeper_session=") && !$0.contains("Secure") && !$0.contains("Max-Age=0") })
            // Sign-out needs the CSRF token, then the session is gone for good (even with the old cookie).
            let saved = browser.cookies
            #expect(try await browser.post("/dashboard/sign-out", [:]).status == 403)
            let out = try await browser.post("/dashboard/sign-out", ["csrf": overview.csrf ?? ""])
            #expect(out.status == 303 && out.location == "/dashboard/sign-in")
            let replay = DashboardBrowser(client)
            for (name, value) in saved {
                _ = name
                _ = value
            }
            let old = try await client.execute(
                uri: "/dashboard/apps/alpha/overview", method: .get,
                headers: [.cookie: saved.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")], body: nil)
            #expect(old.status == .seeOther)
            _ = replay
        }
    }

    @Test("a wrong password five times slows sign-in down, even for the right password; an unknown account answers alike")
    func signInThrottle() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "ops@example.com", .admin)
            let browser = DashboardBrowser(client)
            for _ in 0..<5 {
                #expect(try await browser.signIn("ops@example.com", "wrong password!").status == 401)
            }
            let slowed = try await browser.signIn("ops@example.com", Self.password)
            #expect(slowed.status == 429)
            #expect(slowed.text.contains("Too many failed sign-ins"))
            #expect(Int(slowed.headers[.retryAfter] ?? "") ?? 0 >= 29)
            #expect(browser.cookies["storekeeper_session"] == nil)
            let unknown = try await browser.signIn("nobody@example.com", Self.password)
            #expect(unknown.status == 401 && unknown.text.contains("The email or password is not right."))
        }
    }

    @Test("the sign-in form and every signed-in form are refused without their CSRF token")
    func csrf() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "ops@example.com", .admin)
            try await Self.seed(harness, client)
            let browser = DashboardBrowser(client)
            _ = try await browser.get("/dashboard/sign-in")
            #expect(try await browser.post("/dashboard/sign-in", ["email": "ops@example.com", "password": Self.password]).status == 403)
            #expect(
                try await browser.post(
                    "/dashboard/sign-in", ["email": "ops@example.com", "password": Self.password, "csrf": "x" + String(repeating: "A", count: 42)]
                ).status == 403)
            try await browser.signIn("ops@example.com", Self.password)
            let page = try await browser.get("/dashboard/apps/alpha/customers/carol")
            let token = try #require(page.csrf)
            let grant = ["productId": "pro.lifetime", "reason": "goodwill", "confirm": "yes"]
            let refused = try await browser.post("/dashboard/apps/alpha/customers/carol/grant", grant)
            #expect(refused.status == 403 && refused.text.contains("security token"))
            var wrong = grant
            wrong["csrf"] = String(token.reversed())
            #expect(try await browser.post("/dashboard/apps/alpha/customers/carol/grant", wrong).status == 403)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
            // A control character in any field makes the form unreadable (400), never a stored NUL.
            var nul = grant
            nul["csrf"] = token
            nul["reason"] = "good\u{0}will"
            #expect(try await browser.post("/dashboard/apps/alpha/customers/carol/grant", nul).status == 400)
            #expect(
                try await browser.post(
                    "/dashboard/apps/alpha/users", ["csrf": token, "email": "a\u{0}@b.com", "role": "viewer", "password": "abcdefghijklmnop"]
                ).status == 400)
            // Another session's token does not open this one's forms.
            let other = DashboardBrowser(client)
            try await other.signIn("ops@example.com", Self.password)
            let otherToken = try #require(try await other.get("/dashboard/apps/alpha/customers/carol").csrf)
            #expect(otherToken != token)
            var crossed = grant
            crossed["csrf"] = otherToken
            #expect(try await browser.post("/dashboard/apps/alpha/customers/carol/grant", crossed).status == 403)
        }
    }

    @Test("a viewer sees charts without support links and gets 403 on support pages and posts; support of one app cannot see another")
    func roles() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "viewer@example.com", .viewer)
            try await Self.addUser(harness, "helper@example.com", .support, apps: ["alpha"])
            try await Self.seed(harness, client)
            let viewer = DashboardBrowser(client)
            try await viewer.signIn("viewer@example.com", Self.password)
            let overview = try await viewer.get("/dashboard/apps/alpha/overview")
            #expect(overview.status == 200)
            #expect(!overview.text.contains("/customers") && !overview.text.contains("/notifications") && !overview.text.contains("/settings"))
            for path in ["customers", "customers/carol", "notifications", "audit", "settings", "users"] {
                #expect(try await viewer.get("/dashboard/apps/alpha/\(path)").status == 403, "\(path)")
            }
            let token = try #require(overview.csrf)
            for action in ["grant", "revoke", "extend", "app-account-token"] {
                let answer = try await viewer.post(
                    "/dashboard/apps/alpha/customers/carol/\(action)", ["csrf": token, "productId": "pro.lifetime", "reason": "x", "confirm": "yes"])
                #expect(answer.status == 403, "\(action)")
            }
            #expect(try await viewer.post("/dashboard/apps/alpha/order-lookup", ["csrf": token, "orderId": "A1"]).status == 403)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)

            let helper = DashboardBrowser(client)
            try await helper.signIn("helper@example.com", Self.password)
            #expect(try await helper.get("/dashboard/apps/alpha/customers/carol").status == 200)
            for path in ["overview", "customers", "customers/carol", "notifications", "charts", "cohorts"] {
                #expect(try await helper.get("/dashboard/apps/beta/\(path)").status == 404, "\(path)")
            }
            let alpha = try await helper.get("/dashboard/apps/alpha/overview")
            #expect(!alpha.text.contains("/dashboard/apps/beta"))
            #expect(try await helper.get("/dashboard/apps/alpha/settings").status == 403)
            let helperToken = try #require(alpha.csrf)
            let intoBeta = try await helper.post(
                "/dashboard/apps/beta/customers/carol/grant", ["csrf": helperToken, "productId": "pro.lifetime", "reason": "x", "confirm": "yes"])
            #expect(intoBeta.status == 404)
        }
    }

    @Test("a grant is confirmed, recorded, shown on the customer page and audited under the user's name; revoking takes it back")
    func grantFromTheCustomerPage() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "helper@example.com", .support)
            try await Self.seed(harness, client)
            let browser = DashboardBrowser(client)
            try await browser.signIn("helper@example.com", Self.password)
            let search = try await browser.get("/dashboard/apps/alpha/customers?q=7002")
            #expect(search.status == 200 && search.text.contains("/dashboard/apps/alpha/customers/carol") && search.text.contains("transaction id"))
            let page = try await browser.get("/dashboard/apps/alpha/customers/carol")
            #expect(page.text.contains("DID_RENEW"))
            let token = try #require(page.csrf)
            let form = ["csrf": token, "productId": "pro.lifetime", "endDate": "2026-03-31", "reason": "outage <b>goodwill</b>"]
            let confirm = try await browser.post("/dashboard/apps/alpha/customers/carol/grant", form)
            #expect(confirm.status == 200 && confirm.text.contains("Grant pro.lifetime to carol?"))
            #expect(confirm.text.contains("outage &lt;b&gt;goodwill&lt;/b&gt;") && !confirm.text.contains("<b>goodwill"))
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
            var confirmed = form
            confirmed["confirm"] = "yes"
            let done = try await browser.post("/dashboard/apps/alpha/customers/carol/grant", confirmed)
            #expect(done.status == 303 && done.location == "/dashboard/apps/alpha/customers/carol?done=granted")
            let after = try await browser.get(done.location!)
            #expect(after.text.contains("The entitlement was granted"))
            #expect(after.text.contains("pro.lifetime") && after.text.contains("support: grant"))
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(audit.count == 1 && audit.first?.actor == "dashboard:helper@example.com" && audit.first?.customerId == "carol")
            let auditPage = try await browser.get("/dashboard/apps/alpha/audit")
            #expect(auditPage.text.contains("dashboard:helper@example.com") && auditPage.text.contains("grant"))
            let state = try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey)
            let entitlements = state.json["entitlements"] as? [[String: Any]] ?? []
            let grantId = try #require(entitlements.compactMap { $0["transactionId"] as? String }.first { $0.hasPrefix("grant:") })
            let revoked = try await browser.post(
                "/dashboard/apps/alpha/customers/carol/revoke", ["csrf": token, "transactionId": grantId, "reason": "by mistake", "confirm": "yes"])
            #expect(revoked.status == 303)
            let state2 = try await client.call(.get, "/v1/apps/alpha/customers/carol", key: Fixture.alphaKey)
            let remaining = state2.json["entitlements"] as? [[String: Any]] ?? []
            #expect(!remaining.contains { ($0["transactionId"] as? String)?.hasPrefix("grant:") == true })
        }
    }

    @Test("every page renders with the app's data; the overview's tiles are the metrics API's figures at the same instant")
    func pages() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            try await Self.addUser(harness, "ops@example.com", .admin)
            try await Self.seed(harness, client)
            let browser = DashboardBrowser(client)
            try await browser.signIn("ops@example.com", Self.password)
            let overview = try await browser.get("/dashboard/apps/alpha/overview?environment=Sandbox")
            #expect(overview.status == 200)
            let at = try #require(DashboardBrowser.Page.capture(#"data-at="([^"]+)""#, in: overview.text))
            let metrics = try await client.call(.get, "/v1/apps/alpha/metrics?environment=Sandbox&at=\(at)", key: Fixture.alphaKey)
            let active = try #require(metrics.json["activeSubscriptions"] as? Int)
            #expect(active == 1)
            let tile = DashboardBrowser.Page.capture(
                #"data-metric="activeSubscriptions"><span class="tile-label">[^<]*</span> <strong class="tile-value">([^<]+)<"#, in: overview.text)
            #expect(tile == "\(active)")
            let mrr = DashboardBrowser.Page.capture(
                #"data-metric="mrr"><span class="tile-label">[^<]*</span> <strong class="tile-value">([^<]+)<"#, in: overview.text)
            #expect(mrr == String(format: "%.2f USD", (metrics.json["mrr"] as? NSNumber)?.doubleValue ?? -1))
            #expect(overview.text.contains("class=\"point\""))
            // The revenue tile is the sum of the API's revenue series over the page's range.
            let from = try #require(DashboardBrowser.Page.capture(#"id="from" name="from" type="date" value="([^"]+)""#, in: overview.text))
            let to = try #require(DashboardBrowser.Page.capture(#"id="to" name="to" type="date" value="([^"]+)""#, in: overview.text))
            let end = try #require(ISO8601DateFormatter().date(from: to + "T00:00:00Z")).addingTimeInterval(Fixture.day)
            let series = try await client.call(
                .get,
                "/v1/apps/alpha/metrics/revenue?environment=Sandbox&interval=day&from=\(from)T00:00:00Z&to=\(ISO8601DateFormatter().string(from: end))",
                key: Fixture.alphaKey)
            let sum = (series.json["points"] as? [[String: Any]] ?? []).compactMap { ($0["value"] as? NSNumber)?.doubleValue }.reduce(0, +)
            let revenue = DashboardBrowser.Page.capture(
                #"data-metric="revenue"><span class="tile-label">[^<]*</span> <strong class="tile-value">([^<]+)<"#, in: overview.text)
            #expect(sum > 0 && revenue == String(format: "%.2f USD", sum), "\(revenue ?? "none") vs \(sum)")
            // Filtered by a product or a storefront: the same page from the API's breakdowns.
            for filter in ["product=pro.monthly", "storefront=USA", "product=pro.lifetime", "interval=week"] {
                let page = try await browser.get("/dashboard/apps/alpha/overview?environment=Sandbox&\(filter)")
                #expect(page.status == 200 && page.text.contains("tile-value"), "\(filter)")
            }
            #expect(try await browser.get("/dashboard/apps/alpha/overview?product=pro.monthly&storefront=USA").status == 400)
            for path in [
                "charts", "charts?metric=revenue&environment=Sandbox", "cohorts?environment=Sandbox", "customers", "customers/carol", "notifications",
                "notifications?type=DID_RENEW", "audit", "settings", "users",
            ] {
                let page = try await browser.get("/dashboard/apps/alpha/\(path)")
                #expect(page.status == 200, "\(path): \(page.text.prefix(300))")
                #expect(page.text.contains("<h1>"), "\(path)")
            }
            let notifications = try await browser.get("/dashboard/apps/alpha/notifications?state=processed")
            let link = try #require(DashboardBrowser.Page.capture(#"href="(/dashboard/apps/alpha/notifications/\d+)""#, in: notifications.text))
            let detail = try await browser.get(link)
            #expect(
                detail.status == 200 && detail.text.contains("DID_RENEW") && detail.text.contains("transactionId") && detail.text.contains("7002"))
            let csv = try await browser.get("/dashboard/apps/alpha/charts/activeSubscriptions.csv?environment=Sandbox")
            #expect(csv.status == 200 && csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.text.hasPrefix("start,end,activeSubscriptions,currency,unconverted\r\n") && csv.text.split(separator: "\r\n").count == 31)
            let settings = try await browser.get("/dashboard/apps/alpha/settings")
            #expect(
                !settings.text.contains("alpha-shared-secret") && !settings.text.contains(Fixture.alphaAdmin) && settings.text.contains("fingerprint")
            )
            // Bad input is a page with a 4xx, never a 500.
            for path in [
                "overview?from=yesterday", "charts?metric=nope", "overview?storefront=<x>", "notifications?state=weird", "customers/nobody",
                "notifications/99999",
            ] {
                let page = try await browser.get("/dashboard/apps/alpha/\(path)")
                #expect((400..<500).contains(page.status), "\(path)")
            }
        }
    }

    @Test("customer ids and payload text are escaped on every page they appear")
    func escaping() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUser(harness, "ops@example.com", .admin)
            let hostile = "<script>alert(1)</script>"
            let grant = #"{"productId": "pro.lifetime", "reason": "<img src=x onerror=alert(2)>"}"#
            let encoded = hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/\(encoded)/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            let browser = DashboardBrowser(client)
            try await browser.signIn("ops@example.com", Self.password)
            for path in ["customers", "customers/\(encoded)", "audit", "customers?q=\(encoded)"] {
                let page = try await browser.get("/dashboard/apps/alpha/\(path)")
                #expect(page.status == 200, "\(path)")
                #expect(!page.text.contains("<script>") && !page.text.contains("<img src=x"), "\(path)")
            }
        }
    }

    @Test("the configuration's first admin is created at start when missing, and its hash must be a hash")
    func initialAdmin() async throws {
        let hash = try PasswordHash.make(Self.password)
        let check: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void = { harness, client in
            let browser = DashboardBrowser(client)
            let signedIn = try await browser.signIn("root@example.com", Self.password)
            let user = try await harness.store.dashboardUser(email: "root@example.com")
            #expect(signedIn.status == 303)
            #expect(user?.role == .admin)
        }
        try await ServerHarness.run(
            .memory, configure: { $0.dashboard.initialAdmin = .init(email: "Root@Example.com", passwordHash: hash) }, check)
        let json = #"{"apps": [], "dashboard": {"initialAdmin": {"email": "root@example.com", "passwordHash": "hunter2hunter2"}}}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ServerConfiguration.self, from: Data(json.utf8)) }
    }
}
