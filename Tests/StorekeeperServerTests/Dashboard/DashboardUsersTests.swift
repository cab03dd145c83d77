import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Dashboard users: an admin limited to some apps stays within them; a new password ends sessions")
struct DashboardUsersTests {
    static let password = DashboardTests.password
    static let newPassword = "a brand new password 42"

    /// root (admin of every app), lim (admin of alpha), and users within and beyond alpha.
    static func addUsers(_ harness: ServerHarness) async throws {
        try await DashboardTests.addUser(harness, "root@example.com", .admin)
        try await DashboardTests.addUser(harness, "lim@example.com", .admin, apps: ["alpha"])
        try await DashboardTests.addUser(harness, "helper@example.com", .support, apps: ["alpha"])
        try await DashboardTests.addUser(harness, "both@example.com", .support, apps: ["alpha", "beta"])
        try await DashboardTests.addUser(harness, "betaonly@example.com", .viewer, apps: ["beta"])
        try await DashboardTests.addUser(harness, "everywhere@example.com", .viewer)
    }

    /// A browser signed in as `email`, with the CSRF token of its users page.
    static func signedIn(_ client: any TestClientProtocol, _ email: String, password: String = password) async throws -> (DashboardBrowser, String) {
        let browser = DashboardBrowser(client)
        let answer = try await browser.signIn(email, password)
        #expect(answer.status == 303, "sign-in of \(email)")
        let page = try await browser.get("/dashboard/apps/alpha/users")
        return (browser, try #require(page.csrf, "no users page for \(email): \(page.status)"))
    }

    static func save(
        _ browser: DashboardBrowser, _ csrf: String, _ email: String, role: String, apps: String, password: String = newPassword
    )
        async throws -> DashboardBrowser.Page
    {
        try await browser.post("/dashboard/apps/alpha/users", ["csrf": csrf, "email": email, "role": role, "apps": apps, "password": password])
    }

    @Test("an admin of alpha cannot create a user of every app or of beta; a user within alpha they can")
    func limitedAdminCreatesWithinTheirApps() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            let (lim, csrf) = try await Self.signedIn(client, "lim@example.com")
            for apps in ["", "beta", "alpha,beta", "alpha, gamma", "nowhere"] {
                let answer = try await Self.save(lim, csrf, "new@example.com", role: "admin", apps: apps)
                #expect(answer.status == 403, "apps \(apps)")
                #expect(try await harness.store.dashboardUser(email: "new@example.com") == nil, "apps \(apps)")
            }
            let allowed = try await Self.save(lim, csrf, "new@example.com", role: "admin", apps: "alpha")
            #expect(allowed.status == 303)
            #expect(try await harness.store.dashboardUser(email: "new@example.com")?.apps == ["alpha"])
        }
    }

    @Test("an admin of alpha cannot add beta, or every app, to their own account")
    func limitedAdminCannotWidenThemselves() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            let (lim, csrf) = try await Self.signedIn(client, "lim@example.com")
            for apps in ["alpha,beta", "beta", ""] {
                #expect(try await Self.save(lim, csrf, "lim@example.com", role: "admin", apps: apps).status == 403, "apps \(apps)")
            }
            let stored = try #require(try await harness.store.dashboardUser(email: "lim@example.com"))
            #expect(stored.apps == ["alpha"] && PasswordHash.verify(Self.password, against: stored.passwordHash))
            #expect(try await lim.get("/dashboard/apps/beta/overview").status == 404)
        }
    }

    @Test("an admin of alpha cannot reset, re-role or re-scope a global admin (nor anyone seeing beyond alpha), so cannot sign in as them")
    func limitedAdminCannotTouchWiderUsers() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            let before = try await harness.store.dashboardUsers()
            let (lim, csrf) = try await Self.signedIn(client, "lim@example.com")
            for email in ["root@example.com", "everywhere@example.com", "both@example.com", "betaonly@example.com"] {
                for role in ["admin", "viewer"] {
                    let answer = try await Self.save(lim, csrf, email, role: role, apps: "alpha")
                    #expect(answer.status == 403, "\(email) as \(role)")
                }
            }
            #expect(try await harness.store.dashboardUsers() == before)
            let root = DashboardBrowser(client)
            #expect(try await root.signIn("root@example.com", Self.newPassword).status == 401)
            #expect(try await root.signIn("root@example.com", Self.password).status == 303)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).isEmpty)
            // Within alpha, the same admin resets and re-roles as before.
            #expect(try await Self.save(lim, csrf, "helper@example.com", role: "viewer", apps: "alpha").status == 303)
            #expect(try await harness.store.dashboardUser(email: "helper@example.com")?.role == .viewer)
        }
    }

    @Test("the users page of an admin of alpha lists only users within alpha; a global admin's lists everyone")
    func usersPageListsManageableUsers() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            func listed(_ page: DashboardBrowser.Page) -> Set<String> {
                let regex = try? NSRegularExpression(pattern: #"<tr><td>([^<]+@example\.com)</td>"#)
                let range = NSRange(page.text.startIndex..., in: page.text)
                return Set(
                    (regex?.matches(in: page.text, range: range) ?? []).compactMap {
                        Range($0.range(at: 1), in: page.text).map { String(page.text[$0]) }
                    })
            }
            let lim = DashboardBrowser(client)
            try await lim.signIn("lim@example.com", Self.password)
            let limited = try await lim.get("/dashboard/apps/alpha/users")
            #expect(limited.status == 200)
            #expect(listed(limited) == ["lim@example.com", "helper@example.com"])
            #expect(limited.text.contains("among alpha") && !limited.text.contains("empty for all"))
            let root = DashboardBrowser(client)
            try await root.signIn("root@example.com", Self.password)
            let everyone = try await root.get("/dashboard/apps/alpha/users")
            #expect(listed(everyone) == Set(try await harness.store.dashboardUsers().map(\.email)))
            #expect(everyone.text.contains("empty for all"))
        }
    }

    @Test("a password reset ends every session of that user at once: pages send them to sign in, forms are refused")
    func resetEndsSessions() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            try await DashboardTests.seed(harness, client)
            let first = DashboardBrowser(client)
            try await first.signIn("helper@example.com", Self.password)
            let second = DashboardBrowser(client)
            try await second.signIn("helper@example.com", Self.password)
            let page = try await first.get("/dashboard/apps/alpha/customers/carol")
            let token = try #require(page.csrf)
            #expect(try await second.get("/dashboard/apps/alpha/customers").status == 200)

            let (lim, csrf) = try await Self.signedIn(client, "lim@example.com")
            #expect(try await Self.save(lim, csrf, "helper@example.com", role: "support", apps: "alpha").status == 303)

            let refusedPage = try await second.get("/dashboard/apps/alpha/customers")
            #expect(refusedPage.status == 303 && refusedPage.location?.hasPrefix("/dashboard/sign-in") == true)
            let refusedForm = try await first.post(
                "/dashboard/apps/alpha/customers/carol/grant", ["csrf": token, "productId": "pro.lifetime", "reason": "x", "confirm": "yes"])
            #expect(refusedForm.status == 403)
            #expect(try await harness.store.auditEntries(appId: "alpha", customerId: "carol", limit: 10).isEmpty)
            // The admin who reset it is still signed in; the user signs in with the new password only.
            #expect(try await lim.get("/dashboard/apps/alpha/users").status == 200)
            #expect(try await DashboardBrowser(client).signIn("helper@example.com", Self.password).status == 401)
            #expect(try await DashboardBrowser(client).signIn("helper@example.com", Self.newPassword).status == 303)
        }
    }

    @Test("changing one's own password ends one's other sessions; the one that changed it goes on under a new cookie")
    func ownChangeEndsOtherSessions() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await Self.addUsers(harness)
            let other = DashboardBrowser(client)
            try await other.signIn("lim@example.com", Self.password)
            let (lim, csrf) = try await Self.signedIn(client, "lim@example.com")
            let oldCookie = try #require(lim.cookies["storekeeper_session"])
            #expect(try await Self.save(lim, csrf, "lim@example.com", role: "admin", apps: "alpha").status == 303)
            #expect(try await other.get("/dashboard/apps/alpha/users").status == 303)
            #expect(lim.cookies["storekeeper_session"] != oldCookie)
            #expect(try await lim.get("/dashboard/apps/alpha/users").status == 200)
            let stale = try await client.execute(
                uri: "/dashboard/apps/alpha/users", method: .get, headers: [.cookie: "storekeeper_session=\(oldCookie)"], body: nil)
            #expect(stale.status == .seeOther)
        }
    }
}
