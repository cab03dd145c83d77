import Foundation
import HummingbirdTesting
import StorekeeperServer
import SubscriptionAnalytics
import Testing

/// `GET /v1/apps/{appId}/metrics`: the snapshot metrics of signed notifications, to the cent.
@Suite("Analytics: the metrics route")
struct MetricsRouteTests {
    static let t0 = Fixture.t0
    static let day = Fixture.day

    @Test("signed notifications, duplicated and out of order, give the definitions' figures in the sandbox view", arguments: ServerBackend.available)
    func snapshot(backend: ServerBackend) async throws {
        try await ServerHarness.run(
            backend,
            configure: { configuration in
                configuration.apps[0].analytics = AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.10")!])
            }
        ) { harness, client in
            let monthly = try SignedData.transaction(
                id: "8001", original: "8001", purchase: Self.t0, expires: Self.t0 + 30 * Self.day, signed: Self.t0)
            let euros = try SignedData.transaction(
                id: "8002", original: "8002", purchase: Self.t0, expires: Self.t0 + 30 * Self.day, signed: Self.t0, currency: "EUR")
            let trial = try SignedData.transaction(
                id: "8003", original: "8003", purchase: Self.t0, expires: Self.t0 + 7 * Self.day, signed: Self.t0, price: 0, freeTrial: true)
            let refundAt = Self.t0 + 15 * Self.day
            let refunded = try SignedData.transaction(
                id: "8001", original: "8001", purchase: Self.t0, expires: Self.t0 + 30 * Self.day, signed: refundAt, revoked: refundAt)
            var bodies = [
                try SignedData.notification(
                    harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.t0, transaction: monthly, renewal: nil),
                try SignedData.notification(
                    harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.t0, transaction: euros, renewal: nil),
                try SignedData.notification(
                    harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.t0, transaction: trial, renewal: nil),
            ]
            bodies += bodies  // every notification twice
            bodies.insert(try SignedData.notification(harness.ca, type: "REFUND", signed: refundAt, transaction: refunded, renewal: nil), at: 0)
            harness.clock.set(Self.t0 + 20 * Self.day)
            for body in bodies {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            try await harness.processor.drain()

            func metrics(_ query: String) async throws -> [String: Any] {
                let answer = try await client.call(.get, "/v1/apps/alpha/metrics?" + query, key: Fixture.alphaKey)
                #expect(answer.status == 200, "\(answer.text)")
                return answer.json
            }
            // The test data is all Sandbox: the default production view is empty.
            let production = try await metrics("at=2026-01-05T00:00:00Z")
            #expect(production["activeSubscriptions"] as? Int == 0 && production["environment"] as? String == "Production")
            let early = try await metrics("at=2026-01-05T00:00:00Z&environment=Sandbox")
            #expect(early["activeSubscriptions"] as? Int == 2)
            #expect(early["activeTrials"] as? Int == 1)
            #expect(early["mrr"] as? Double == 20.98)  // 9.99 + 9.99 × 1.10 = 20.979
            #expect(early["currency"] as? String == "USD")
            let late = try await metrics("at=2026-01-20T00:00:00Z&environment=Sandbox")
            #expect(late["activeSubscriptions"] as? Int == 1)
            #expect(late["activeTrials"] as? Int == 0)
            #expect(late["mrr"] as? Double == 10.99)  // 9.99 × 1.10 = 10.989

            // Series: January in one monthly point, and days.
            func series(_ path: String) async throws -> [String: Any] {
                let answer = try await client.call(.get, "/v1/apps/alpha/metrics/" + path, key: Fixture.alphaKey)
                #expect(answer.status == 200, "\(answer.text)")
                return answer.json
            }
            let january = "from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&interval=month&environment=Sandbox"
            func values(_ json: [String: Any]) -> [Double?] { (json["points"] as? [[String: Any]] ?? []).map { $0["value"] as? Double } }
            #expect(values(try await series("revenue?" + january)) == [20.98])  // 9.99 + 9.99 × 1.10
            #expect(values(try await series("refundAmount?" + january)) == [9.99])
            #expect(values(try await series("netRevenue?" + january)) == [10.99])  // 20.979 − 9.99 = 10.989
            #expect(values(try await series("newTrials?" + january)) == [1])
            let days = try await series("activeSubscriptions?from=2026-01-01T12:00:00Z&to=2026-01-03T00:00:00Z&interval=day&environment=Sandbox")
            #expect(values(days) == [2, 2])
            #expect(days["timeZone"] as? String == "UTC" && days["currency"] as? String == "USD")
            let byOffer = try await series("revenue?groupBy=offer&" + january)
            let groups = byOffer["groups"] as? [String: [[String: Any]]]
            #expect(groups?["none"]?.first?["value"] as? Double == 20.98)
            #expect(groups?["freeTrial"]?.first?["value"] as? Double == 0)
            for refused in [
                "nonsense?" + january, "revenue?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
                "revenue?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z&interval=day", "revenue?" + january + "&groupBy=color",
                "revenue?from=yesterday&to=today",
            ] {
                let answer = try await client.call(.get, "/v1/apps/alpha/metrics/" + refused, key: Fixture.alphaKey)
                #expect(answer.status == 400, "\(refused): \(answer.text)")
            }

            #expect(try await client.call(.get, "/v1/apps/alpha/metrics").status == 401)
            #expect(try await client.call(.get, "/v1/apps/alpha/metrics?at=yesterday", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/alpha/metrics?environment=Xcode", key: Fixture.alphaKey).status == 400)
            #expect(try await client.call(.get, "/v1/apps/beta/metrics", key: Fixture.alphaKey).status == 404)
        }
    }
}
