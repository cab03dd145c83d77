import AppStoreServerAPITesting
import Foundation
import HummingbirdTesting
import StorekeeperServer
import StorekeeperStore
import Testing

/// The support actions that call Apple, through the dashboard: each confirmed, sent to Apple
/// exactly as the admin API sends it, audited under the user's name, shown on the page.
@Suite("Dashboard: support actions at Apple")
struct DashboardSupportTests {
    static let chain = "7001"

    /// A support user signed in, on the customer page of alpha's customer carol (chain 7001).
    static func customerPage(_ harness: ServerHarness, _ client: any TestClientProtocol) async throws -> (DashboardBrowser, String) {
        try await DashboardTests.addUser(harness, "helper@example.com", .support)
        try await DashboardTests.seed(harness, client)
        let browser = DashboardBrowser(client)
        try await browser.signIn("helper@example.com", DashboardTests.password)
        let page = try await browser.get("/dashboard/apps/alpha/customers/carol")
        #expect(page.text.contains("Extend a renewal date at Apple"))
        return (browser, try #require(page.csrf))
    }

    @Test("extending a renewal date asks Apple once per confirmed form, audits it and says so on the page")
    func extend() async throws {
        let apple = AppleAccess()
        await apple.transport.expect(
            "PUT", "/inApps/v1/subscriptions/extend/\(Self.chain)",
            respond: .json(200, #"{"originalTransactionId":"7001","webOrderLineItemId":"1","success":true,"effectiveDate":1767225600000}"#))
        try await apple.run(.memory) { harness, client in
            let (browser, token) = try await Self.customerPage(harness, client)
            let form = ["csrf": token, "originalTransactionId": Self.chain, "days": "14", "reasonCode": "3", "reason": "outage"]
            let confirm = try await browser.post("/dashboard/apps/alpha/customers/carol/extend", form)
            #expect(confirm.status == 200 && confirm.text.contains("Extend subscription 7001 by 14 days?"))
            #expect(await apple.transport.requests.isEmpty)
            var confirmed = form
            confirmed["confirm"] = "yes"
            let done = try await browser.post("/dashboard/apps/alpha/customers/carol/extend", confirmed)
            #expect(done.status == 303 && done.location?.hasSuffix("?done=extended") == true)
            let sent = try await apple.sentBody(0)
            #expect(sent["extendByDays"] as? Int == 14 && sent["extendReasonCode"] as? Int == 3)
            let audit = try await harness.store.auditEntries(appId: "alpha", limit: 10)
            #expect(
                audit.first?.action == "extend_renewal" && audit.first?.actor == "dashboard:helper@example.com" && audit.first?.customerId == "carol")
            let page = try await browser.get(done.location!)
            #expect(page.text.contains("Apple extended the renewal date") && page.text.contains("support: extend_renewal"))
            // Out of range or another customer's chain: refused before Apple hears of it.
            var tooLong = confirmed
            tooLong["days"] = "91"
            #expect(try await browser.post("/dashboard/apps/alpha/customers/carol/extend", tooLong).status == 400)
            var other = confirmed
            other["originalTransactionId"] = "9999"
            #expect(try await browser.post("/dashboard/apps/alpha/customers/carol/extend", other).status == 400)
            #expect(await apple.transport.requests.count == 1)
        }
    }

    @Test("setting the app account token and looking up an order go to Apple and are audited")
    func tokenAndOrder() async throws {
        let apple = AppleAccess()
        await apple.transport.expect("PUT", "/inApps/v1/transactions/\(Self.chain)/appAccountToken", respond: .json(200, "{}"))
        try await apple.run(.memory) { harness, client in
            let (browser, token) = try await Self.customerPage(harness, client)
            let uuid = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
            let set = try await browser.post(
                "/dashboard/apps/alpha/customers/carol/app-account-token",
                ["csrf": token, "originalTransactionId": Self.chain, "appAccountToken": uuid, "reason": "account merge", "confirm": "yes"])
            #expect(set.status == 303 && set.location?.hasSuffix("?done=token") == true)
            #expect(try await apple.sentBody(0)["appAccountToken"] as? String == uuid.lowercased())
            #expect(
                try await browser.post(
                    "/dashboard/apps/alpha/customers/carol/app-account-token",
                    ["csrf": token, "originalTransactionId": Self.chain, "appAccountToken": "not-a-uuid", "reason": "x", "confirm": "yes"]
                ).status == 400)

            let t0 = Fixture.t0
            let signed = try harness.ca.signTransaction(
                try SignedData.transaction(id: "7001", original: "7001", purchase: t0, expires: t0 + 30 * Fixture.day, signed: t0))
            await apple.transport.expect(
                "GET", "/inApps/v1/lookup/MQ2X9K7", respond: .json(200, #"{"status":0,"signedTransactions":["\#(signed)"]}"#))
            let order = try await browser.post("/dashboard/apps/alpha/order-lookup", ["csrf": token, "orderId": "MQ2X9K7"])
            #expect(order.status == 200, "\(order.text.prefix(400))")
            #expect(
                order.text.contains("valid") && order.text.contains("/dashboard/apps/alpha/customers/carol") && order.text.contains("pro.monthly"))
            #expect(try await browser.post("/dashboard/apps/alpha/order-lookup", ["csrf": token, "orderId": "../x"]).status == 400)
            let actions = try await harness.store.auditEntries(appId: "alpha", limit: 10).map(\.action)
            #expect(actions == ["lookup_order", "set_app_account_token"])
        }
    }

    @Test("an admin's test-notification button asks Apple and is audited; support cannot press it")
    func testNotification() async throws {
        let apple = AppleAccess()
        await apple.transport.expect("POST", "/inApps/v1/notifications/test", respond: .json(200, #"{"testNotificationToken":"tok-1"}"#))
        try await apple.run(.memory) { harness, client in
            try await DashboardTests.addUser(harness, "ops@example.com", .admin)
            try await DashboardTests.addUser(harness, "helper@example.com", .support)
            let helper = DashboardBrowser(client)
            try await helper.signIn("helper@example.com", DashboardTests.password)
            let helperToken = try #require(try await helper.get("/dashboard/apps/alpha/overview").csrf)
            #expect(try await helper.post("/dashboard/apps/alpha/settings/test-notification", ["csrf": helperToken]).status == 403)
            let admin = DashboardBrowser(client)
            try await admin.signIn("ops@example.com", DashboardTests.password)
            let settings = try await admin.get("/dashboard/apps/alpha/settings")
            #expect(settings.text.contains("Request a test notification"))
            #expect(!settings.text.contains("BEGIN PRIVATE KEY") && !settings.text.contains("alpha-shared-secret"))
            let pressed = try await admin.post("/dashboard/apps/alpha/settings/test-notification", ["csrf": try #require(settings.csrf)])
            #expect(pressed.status == 303)
            #expect(try await admin.get(pressed.location!).text.contains("Apple accepted the request"))
            #expect(await apple.transport.requests.count == 1)
            #expect(try await harness.store.auditEntries(appId: "alpha", limit: 10).first?.action == "request_test_notification")
            // The app switcher lists every app for an admin of all apps.
            #expect(settings.text.contains("/dashboard/apps/beta/settings") && settings.text.contains("/dashboard/apps/gamma/settings"))
        }
    }
}
