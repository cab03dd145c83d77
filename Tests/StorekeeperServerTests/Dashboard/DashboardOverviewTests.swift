import Foundation
import HummingbirdTesting
import StorekeeperServer
import Testing

/// The overview's tiles: those "over the range" cover exactly the range, whatever the interval
/// of the charts beside them.
@Suite("Dashboard: the overview's tiles")
struct DashboardOverviewTests {
    static func tile(_ metric: String, in page: DashboardBrowser.Page) -> String? {
        DashboardBrowser.Page.capture(
            #"data-metric=""# + metric + #""><span class="tile-label">[^<]*</span> <strong class="tile-value">([^<]+)<"#, in: page.text)
    }

    static func note(_ metric: String, in page: DashboardBrowser.Page) -> String? {
        DashboardBrowser.Page.capture(#"data-metric=""# + metric + #"">.*?<span class="tile-note">([^<]+)<"#, in: page.text)
    }

    @Test(
        "revenue, proceeds and new subscriptions over the range, by day, week or month, are the range's own; a filtered tile is the range's end",
        arguments: ServerBackend.available)
    func tilesCoverTheRange(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            try await DashboardTests.addUser(harness, "ops@example.com", .admin)
            let t0 = Fixture.t0
            let day = Fixture.day
            // Monthly subscriptions bought in January 2026 at prices that tell the days apart. The
            // range is January 8…21: January 6 shares the range's first ISO week (from Monday the
            // 5th), January 23 its last (to Sunday the 25th), January 2 and 30 its month.
            let sales: [(day: Double, price: Int64)] = [(1, 1_000), (5, 2_000), (9, 4_000), (19, 8_000), (22, 16_000), (29, 32_000)]
            harness.clock.set(t0 + 45 * day)
            for (number, sale) in sales.enumerated() {
                let id = "95\(number)"
                let bought = t0 + sale.day * day
                let transaction = try SignedData.transaction(
                    id: id, original: id, purchase: bought, expires: bought + 30 * day, signed: bought, price: sale.price)
                let body = try SignedData.notification(
                    harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: bought, transaction: transaction,
                    renewal: try SignedData.renewal(original: id, autoRenew: true, signed: bought))
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            try await harness.processor.drain()
            let browser = DashboardBrowser(client)
            try await browser.signIn("ops@example.com", DashboardTests.password)
            // By the definitions, over exactly January 8…21: the sales of the 10th and the 20th.
            let inRange = sales.filter { (7..<21).contains($0.day) }
            let revenue = Decimal(inRange.map(\.price).reduce(0, +)) / 1000
            let proceeds = Decimal(inRange.map(\.price).reduce(0, +)) * 7 / 10_000
            for interval in ["day", "week", "month"] {
                let page = try await browser.get(
                    "/dashboard/apps/alpha/overview?environment=Sandbox&from=2026-01-08&to=2026-01-21&interval=\(interval)")
                #expect(page.status == 200)
                #expect(
                    Self.tile("revenue", in: page) == "\(String(format: "%.2f", NSDecimalNumber(decimal: revenue).doubleValue)) USD", "\(interval)")
                #expect(
                    Self.tile("proceeds", in: page) == "\(String(format: "%.2f", NSDecimalNumber(decimal: proceeds).doubleValue)) USD", "\(interval)")
                #expect(Self.tile("newSubscriptions", in: page) == "\(inRange.count)", "\(interval)")
                #expect(Self.note("revenue", in: page) == "over the range")
                // Filtered by a product: the state at the range's end (January 21, 23:59:59.999),
                // when the subscriptions of the 2nd, 6th, 10th and 20th were active.
                let filtered = try await browser.get(
                    "/dashboard/apps/alpha/overview?environment=Sandbox&from=2026-01-08&to=2026-01-21&interval=\(interval)&product=pro.monthly")
                let active = sales.filter { $0.day < 21 && $0.day + 30 > 21 }.count
                #expect(Self.tile("activeSubscriptions", in: filtered) == "\(active)", "\(interval)")
                #expect(Self.note("activeSubscriptions", in: filtered) == "at the end of the range")
                #expect(Self.tile("revenue", in: filtered) == Self.tile("revenue", in: page), "\(interval)")
            }
        }
    }
}
