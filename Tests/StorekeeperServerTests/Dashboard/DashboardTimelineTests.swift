import Foundation
import HummingbirdTesting
import StorekeeperStore
import Testing

@testable import StorekeeperDashboard
@testable import StorekeeperServer

@Suite("Dashboard: the customer timeline in words, its raw details with ISO 8601 dates")
struct DashboardTimelineTests {
    /// The raw details of the timeline's first event of `type`, read back as JSON.
    static func rawDetails(_ type: String, in page: DashboardBrowser.Page) throws -> [String: Any] {
        let pattern = #"<summary>Raw details</summary><pre>"# + NSRegularExpression.escapedPattern(for: type) + #" ([^<]*)</pre>"#
        let escaped = try #require(DashboardBrowser.Page.capture(pattern, in: page.text), "no raw details of \(type)")
        let text = escaped.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// carol's page (a monthly subscription, renewed once), as support sees it.
    static func carolsPage(_ harness: ServerHarness, _ client: any TestClientProtocol) async throws -> DashboardBrowser.Page {
        try await DashboardTests.addUser(harness, "helper@example.com", .support)
        try await DashboardTests.seed(harness, client)
        let browser = DashboardBrowser(client)
        try await browser.signIn("helper@example.com", DashboardTests.password)
        return try await browser.get("/dashboard/apps/alpha/customers/carol")
    }

    @Test("a status change's expiry in the raw details is an ISO 8601 instant (not seconds since 2001), as in the events API")
    func rawDetailsCarryISO8601Dates() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            let page = try await Self.carolsPage(harness, client)
            #expect(page.status == 200)
            let renewedEnd = Fixture.t0 + 60 * Fixture.day
            let details = try Self.rawDetails("subscription.status_changed", in: page)
            let expires = try #require(details["expiresDate"] as? String, "expiresDate is \(String(describing: details["expiresDate"]))")
            #expect(Timestamp.date(from: expires) == renewedEnd, "\(expires)")
            #expect(try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(expires) == renewedEnd)
            let renewed = try Self.rawDetails("subscription.renewed", in: page)
            #expect(renewed["expiresDate"] as? String == Timestamp.string(from: renewedEnd))
            // The API's events carry the same text.
            let events = try await client.call(.get, "/v1/apps/alpha/customers/carol/events", key: Fixture.alphaKey)
            let list = events.json["events"] as? [[String: Any]] ?? []
            let expiries = list.filter { $0["type"] as? String == "subscription.status_changed" }.compactMap {
                (($0["details"] as? [String: Any])?["expiresDate"] as? String).flatMap(Timestamp.date(from:))
            }
            #expect(expiries.contains(renewedEnd), "\(expiries)")
        }
    }

    @Test("each event reads as a sentence with dates as days and prices with their currency")
    func timelineReadsAsWords() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            let page = try await Self.carolsPage(harness, client)
            let rows = page.text.components(separatedBy: "<tr>").filter { $0.contains("<td>event</td>") }
            #expect(!rows.isEmpty)
            #expect(rows.contains { $0.contains("<td>Subscribed to pro.monthly until 31 Jan 2026 — 9.99 USD<details>") })
            #expect(rows.contains { $0.contains("<td>Renewed pro.monthly until 2 Mar 2026 — 9.99 USD<details>") })
            #expect(
                rows.contains { $0.contains("<td>pro.monthly went from active to active") || $0.contains("<td>pro.monthly is active, period ends") })
            // Every event's sentence comes before its disclosure and holds no raw JSON or 2001-based number.
            for row in rows {
                let sentence = try #require(DashboardBrowser.Page.capture(#"<td>event</td><td>([^<]*)<details>"#, in: row), "\(row)")
                #expect(!sentence.contains("{") && !sentence.contains("&quot;") && sentence.first?.isLetter == true, "\(sentence)")
                #expect(row.contains("<details><summary>Raw details</summary>"))
            }
        }
    }

    @Test("sentences of the events the server writes: prices with currency, reporting currency beside, days in the app's time zone")
    func sentences() {
        let words = EventSentence(timeZone: "America/Los_Angeles")
        let end = Date(timeIntervalSince1970: 1_816_905_600)  // 2027-07-30T00:00:00Z, still the 29th in Los Angeles
        var details = EventDetails(productId: "premium.monthly", expiresDate: end)
        details.price = Decimal(string: "9.9")
        details.currency = "EUR"
        details.priceInReportingCurrency = Decimal(string: "10.8")
        details.reportingCurrency = "USD"
        func sentence(_ type: String, _ details: EventDetails) -> String {
            words.text(EventRecord(appId: "a", type: EventType(rawValue: type), details: details, occurredAt: end, idempotencyKey: type))
        }
        #expect(sentence("subscription.renewed", details) == "Renewed premium.monthly until 29 Jul 2027 — 9.90 EUR (10.80 USD)")
        details.currency = "USD"
        #expect(sentence("subscription.renewed", details) == "Renewed premium.monthly until 29 Jul 2027 — 9.90 USD")
        #expect(EventSentence(timeZone: "UTC").day(end) == "30 Jul 2027")
        var status = EventDetails(from: "active", to: "billingRetry", productId: "premium.monthly", expiresDate: end)
        #expect(sentence("subscription.status_changed", status) == "premium.monthly went from active to in billing retry, period ends 29 Jul 2027")
        status.from = nil
        #expect(sentence("subscription.status_changed", status) == "premium.monthly is in billing retry, period ends 29 Jul 2027")
        var expired = EventDetails(productId: "premium.monthly")
        expired.expirationReason = "voluntary"
        #expect(sentence("subscription.expired", expired) == "premium.monthly expired (voluntary)")
        #expect(sentence("something.new", EventDetails(productId: "x")) == "something.new of x")
    }
}

@Suite("Dashboard: a customer's attributes")
struct DashboardAttributeTests {
    @Test("the attributes the app set show on the customer's page, escaped; removed ones do not")
    func attributesShow() async throws {
        try await ServerHarness.run(.memory) { harness, client in
            try await DashboardTests.addUser(harness, "helper@example.com", .support)
            try await DashboardTests.seed(harness, client)
            try await harness.store.setCustomerAttributes(
                appId: "alpha", customerId: "carol",
                [
                    CustomerAttribute(key: "$email", value: "carol@example.com", updatedAt: Fixture.t0),
                    CustomerAttribute(key: "note", value: "<script>alert(1)</script>", updatedAt: Fixture.t0),
                    CustomerAttribute(key: "gone", value: nil, updatedAt: Fixture.t0),
                ], at: Fixture.t0)
            let browser = DashboardBrowser(client)
            try await browser.signIn("helper@example.com", DashboardTests.password)
            let page = try await browser.get("/dashboard/apps/alpha/customers/carol")
            #expect(page.status == 200)
            #expect(page.text.contains("<td><code>$email</code></td><td>carol@example.com</td>"))
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !page.text.contains("<script>alert(1)"))
            #expect(!page.text.contains("<code>gone</code>"))
        }
    }
}
