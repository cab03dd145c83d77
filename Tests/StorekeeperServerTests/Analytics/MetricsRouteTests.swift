import AppStoreModels
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// `GET /v1/apps/{appId}/metrics`: the snapshot metrics of signed notifications, to the cent.
@Suite("Analytics: the metrics route")
struct MetricsRouteTests {
    static let t0 = Fixture.t0
    static let day = Fixture.day

    @Test("signed notifications, duplicated and out of order, give the definitions' figures in the sandbox view", arguments: ServerBackend.available)
    func snapshot(backend: ServerBackend) async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            configuration.apps[0].analytics = AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.10")!])
        }
        try await ServerHarness.run(
            backend,
            configure: configure
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

    /// Seven lifecycles over January and February 2026, every notification twice and in reverse
    /// order: A a trial that converts, B a trial cancelled and lapsed, C monthly renewals in
    /// euros, D a yearly plan, E a failed renewal through grace and billing retry to a recovery,
    /// F a purchase refunded the next month, G an upgrade mid-period.
    @Test("a server fed signed lifecycles answers every figure the definitions give, to the cent", arguments: ServerBackend.available)
    func lifecycles(backend: ServerBackend) async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            configuration.apps[0].analytics = AnalyticsConfiguration(exchangeRates: ["EUR": Decimal(string: "1.10")!])
            configuration.apps[0].products += [
                CatalogProduct(
                    productId: "pro.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "pro", entitlements: ["pro"],
                    subscriptionPeriod: ISO8601Duration("P1Y")),
                CatalogProduct(
                    productId: "pro.plus", type: .autoRenewable, subscriptionGroupIdentifier: "pro", entitlements: ["pro"],
                    subscriptionPeriod: ISO8601Duration("P1M")),
            ]
        }
        try await ServerHarness.run(
            backend,
            configure: configure
        ) { harness, client in
            let t0 = Self.t0
            let day = Self.day
            func tx(
                _ id: String, _ original: String, _ from: Double, _ to: Double, product: String = "pro.monthly", price: Int64 = 9_990,
                currency: String = "USD", trial: Bool = false, signed: Double? = nil, revoked: Double? = nil
            ) throws -> JWSTransactionDecodedPayload {
                try SignedData.transaction(
                    id: id, original: original, product: product, purchase: t0 + from * day, expires: t0 + to * day,
                    signed: t0 + (signed ?? from) * day, revoked: revoked.map { t0 + $0 * day }, price: trial ? 0 : price, currency: currency,
                    freeTrial: trial)
            }
            func note(
                _ type: String, _ subtype: String? = nil, at: Double, _ transaction: JWSTransactionDecodedPayload,
                renewal: JWSRenewalInfoDecodedPayload? = nil
            ) throws -> String {
                try SignedData.notification(
                    harness.ca, type: type, subtype: subtype, signed: t0 + at * day, transaction: transaction, renewal: renewal)
            }
            func renewal(
                _ original: String, autoRenew: Bool = true, retry: Bool = false, grace: Double? = nil, at: Double
            ) throws
                -> JWSRenewalInfoDecodedPayload
            {
                try SignedData.renewal(
                    original: original, autoRenew: autoRenew, billingRetry: retry, grace: grace.map { t0 + $0 * day }, signed: t0 + at * day)
            }
            var bodies: [String] = []
            // A: a 7-day trial, converted on January 8.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 0, try tx("8101", "8101", 0, 7, trial: true)))
            bodies.append(try note("DID_RENEW", at: 7, try tx("8102", "8101", 7, 37), renewal: try renewal("8101", at: 7)))
            // B: a trial turned off on day 3, lapsed on day 7.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 0, try tx("8111", "8111", 0, 7, trial: true)))
            bodies.append(
                try note(
                    "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: 3, try tx("8111", "8111", 0, 7, trial: true, signed: 3),
                    renewal: try renewal("8111", autoRenew: false, at: 3)))
            bodies.append(
                try note(
                    "EXPIRED", "VOLUNTARY", at: 7, try tx("8111", "8111", 0, 7, trial: true, signed: 7),
                    renewal: try renewal("8111", autoRenew: false, at: 7)))
            // C: €9.99 a month, renewed on January 31.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 0, try tx("8121", "8121", 0, 30, currency: "EUR")))
            bodies.append(try note("DID_RENEW", at: 30, try tx("8122", "8121", 30, 60, currency: "EUR")))
            // D: $79.99 a year from January 3.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 2, try tx("8131", "8131", 2, 367, product: "pro.yearly", price: 79_990)))
            // E: the renewal of January 31 fails: grace to February 16, retry, recovered February 25.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 0, try tx("8141", "8141", 0, 30)))
            bodies.append(
                try note(
                    "DID_FAIL_TO_RENEW", "GRACE_PERIOD", at: 30, try tx("8141", "8141", 0, 30, signed: 30),
                    renewal: try renewal("8141", retry: true, grace: 46, at: 30)))
            bodies.append(
                try note(
                    "GRACE_PERIOD_EXPIRED", at: 46, try tx("8141", "8141", 0, 30, signed: 46),
                    renewal: try renewal("8141", retry: true, grace: 46, at: 46)))
            bodies.append(try note("DID_RENEW", "BILLING_RECOVERY", at: 55, try tx("8142", "8141", 55, 85), renewal: try renewal("8141", at: 55)))
            // F: bought January 10, refunded February 5.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 9, try tx("8151", "8151", 9, 39)))
            bodies.append(try note("REFUND", at: 35, try tx("8151", "8151", 9, 39, signed: 35, revoked: 35)))
            // G: upgraded to $14.99 on January 11.
            bodies.append(try note("SUBSCRIBED", "INITIAL_BUY", at: 0, try tx("8161", "8161", 0, 30)))
            bodies.append(try note("DID_CHANGE_RENEWAL_PREF", "UPGRADE", at: 10, try tx("8162", "8161", 10, 40, product: "pro.plus", price: 14_990)))
            bodies = (bodies + bodies).reversed()
            harness.clock.set(t0 + 70 * day)
            for body in bodies {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            try await harness.processor.drain()

            func json(_ path: String) async throws -> [String: Any] {
                let answer = try await client.call(.get, "/v1/apps/alpha/" + path, key: Fixture.alphaKey)
                #expect(answer.status == 200, "\(path): \(answer.text)")
                return answer.json
            }
            func snapshot(_ at: String) async throws -> [String: Any] { try await json("metrics?environment=Sandbox&at=" + at) }
            // January 20: A, C, D, E, F, G paid; MRR 3 × 9.99 + 14.99 + 9.99 × 1.10 + 79.99 ÷ 12 = 62.6148…
            let january20 = try await snapshot("2026-01-20T00:00:00Z")
            #expect(january20["activeSubscriptions"] as? Int == 6 && january20["activeTrials"] as? Int == 0)
            #expect(january20["mrr"] as? Double == 62.61)
            // February 6: F refunded, E in grace (counted, at its last price): 2 × 9.99 + 14.99 + 10.989 + 6.6658… = 52.6248…
            let february6 = try await snapshot("2026-02-06T00:00:00Z")
            #expect(february6["activeSubscriptions"] as? Int == 5 && february6["gracePeriod"] as? Int == 1)
            #expect(february6["mrr"] as? Double == 52.62)
            // February 20: E in billing retry (not active), A and G expired: C and D, 10.989 + 6.6658… = 17.6548…
            let february20 = try await snapshot("2026-02-20T00:00:00Z")
            #expect(february20["activeSubscriptions"] as? Int == 2 && february20["billingRetry"] as? Int == 1)
            #expect(february20["mrr"] as? Double == 17.65)
            // January 5: A and B in their trials.
            #expect(try await snapshot("2026-01-05T00:00:00Z")["activeTrials"] as? Int == 2)

            func months(_ metric: String) async throws -> [Double?] {
                let answer = try await json("metrics/\(metric)?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&interval=month&environment=Sandbox")
                return (answer["points"] as? [[String: Any]] ?? []).map { $0["value"] as? Double }
            }
            // January's sales: four at $9.99, $79.99, $14.99 and two at €9.99: 156.918; February: E's recovery.
            #expect(try await months("revenue") == [156.92, 9.99])
            #expect(try await months("proceeds") == [109.84, 6.99])  // 70 %
            #expect(try await months("refunds") == [0, 1])
            #expect(try await months("refundAmount") == [0, 9.99])  // dated by the refund, January untouched
            #expect(try await months("netRevenue") == [156.92, 0])
            #expect(try await months("activeSubscriptions") == [6, 3])  // E in grace on January 31; C, D, E at February's end
            #expect(try await months("mrr") == [62.61, 27.64])
            #expect(try await months("gracePeriod") == [1, 0])
            #expect(try await months("newTrials") == [2, 0])
            #expect(try await months("trialConversions") == [1, 0])
            #expect(try await months("newSubscriptions") == [6, 0])
            #expect(try await months("renewals") == [1, 1])  // C on January 31; E's recovery
            #expect(try await months("churnedSubscriptions") == [0, 3])  // A expired, F refunded, G expired
            #expect(try await months("churnRate") == [0, 0.5])  // 3 of the 6 active on February 1
            #expect(try await months("billingIssues") == [1, 0])
            #expect(try await months("billingRecoveries") == [0, 1])

            // Cohorts: the six who first paid in January (B never paid), followed until March 12.
            let cohorts = try await json("cohorts?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&period=month&environment=Sandbox")
            let list = cohorts["cohorts"] as? [[String: Any]] ?? []
            #expect(list.count == 2 && cohorts["currency"] as? String == "USD" && cohorts["period"] as? String == "month")
            #expect(list.first?["customers"] as? Int == 6)
            let periods = list.first?["periods"] as? [[String: Any]] ?? []
            #expect(periods.map { $0["active"] as? Int } == [6, 3, 2])  // January's end; February's end (C, D, E); now (D, E)
            #expect(periods.map { $0["retention"] as? Double } == [1, 0.5, 0.3333])
            // 156.918 in January, +9.99 and −9.99 in February: 26.153 per customer.
            #expect(periods.map { $0["revenuePerCustomer"] as? Double } == [26.15, 26.15, 26.15])
            #expect(list.last?["customers"] as? Int == 0)
            let yearly = try await json("cohorts?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z&product=pro.yearly&environment=Sandbox")
            #expect((yearly["cohorts"] as? [[String: Any]])?.first?["customers"] as? Int == 1)
            for refused in [
                "period=day&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z", "from=2026-01-01T00:00:00Z",
                "product=nope&from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z",
                "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", "period=week&from=2000-01-01T00:00:00Z&to=2026-01-01T00:00:00Z",
            ] {
                let answer = try await client.call(.get, "/v1/apps/alpha/cohorts?" + refused, key: Fixture.alphaKey)
                #expect(answer.status == 400, "\(refused): \(answer.text)")
            }
            #expect(try await client.call(.get, "/v1/apps/alpha/cohorts?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z").status == 401)

            // A late fact about a past day: D's yearly plan refunded on January 15, learned now.
            let lateRefund = try note("REFUND", at: 70, try tx("8131", "8131", 2, 367, product: "pro.yearly", price: 79_990, signed: 70, revoked: 14))
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: lateRefund).status == 200)
            try await harness.processor.drain()
            let revised = try await snapshot("2026-01-20T00:00:00Z")
            #expect(revised["activeSubscriptions"] as? Int == 5)
            #expect(revised["mrr"] as? Double == 55.95)  // 62.6148… − 6.6658…
            #expect(try await months("activeSubscriptions") == [5, 2])
            #expect(try await months("refundAmount") == [79.99, 9.99])
        }
    }

    /// As of January 11, noon: `renewing` is due to renew on January 16 (later in January),
    /// `lapsed` expired on January 6 with auto-renew off, `paid` bought premium.yearly today; and
    /// the operator granted `dave` a free year of premium.yearly ($79.99 in the catalog) today.
    @Test(
        "the month under way counts churn and every flow up to now; a manual grant adds no revenue, proceeds, subscription or MRR",
        arguments: ServerBackend.available)
    func intervalUnderWayAndGrants(backend: ServerBackend) async throws {
        let configure: (inout ServerConfiguration) throws -> Void = { configuration in
            configuration.apps[0].products.append(
                CatalogProduct(
                    productId: "premium.yearly", type: .autoRenewable, subscriptionGroupIdentifier: "premium", entitlements: ["pro"],
                    price: 79.99, currency: "USD", subscriptionPeriod: ISO8601Duration("P1Y")))
        }
        try await ServerHarness.run(
            backend,
            configure: configure
        ) { harness, client in
            let t0 = Self.t0
            let day = Self.day
            harness.clock.set(t0 + 10.5 * day)
            func subscribed(
                _ id: String, _ product: String = "pro.monthly", from: Double, to: Double, price: Int64 = 9_990, autoRenew: Bool = true
            )
                throws -> String
            {
                let transaction = try SignedData.transaction(
                    id: id, original: id, product: product, purchase: t0 + from * day, expires: t0 + to * day, signed: t0 + from * day, price: price)
                let renewal = try SignedData.renewal(original: id, autoRenew: autoRenew, signed: t0 + from * day)
                return try SignedData.notification(
                    harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: t0 + from * day, transaction: transaction, renewal: renewal)
            }
            let bodies = [
                try subscribed("8201", from: -15, to: 15),  // renewing
                try subscribed("8202", from: -25, to: 5, autoRenew: false),  // lapsed
                try subscribed("8203", "premium.yearly", from: 10.25, to: 375.25, price: 79_990),  // paid
            ]
            for body in bodies {
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            }
            try await harness.processor.drain()
            let grant = #"{"productId": "premium.yearly", "endDate": "2027-01-11T12:00:00Z", "reason": "goodwill"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/dave/grants", key: Fixture.alphaAdmin, body: grant).status == 201)

            func values(_ metric: String, _ range: String, environment: String = "Sandbox") async throws -> [Double?] {
                let answer = try await client.call(
                    .get, "/v1/apps/alpha/metrics/\(metric)?\(range)&environment=\(environment)", key: Fixture.alphaKey)
                #expect(answer.status == 200, "\(metric): \(answer.text)")
                return (answer.json["points"] as? [[String: Any]] ?? []).map { $0["value"] as? Double }
            }
            let months = "from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&interval=month"
            // By the definitions, as of now: lapsed churned; renewing still has access now.
            #expect(try await values("churnedSubscriptions", months) == [1, 0])
            #expect(try await values("churnRate", months) == [0.5, nil])  // 1 of the 2 active on January 1
            #expect(try await values("newSubscriptions", months) == [1, 0])
            // The state now (renewing, paid), not at January's end; February has not begun.
            #expect(try await values("activeSubscriptions", months) == [2, nil])
            #expect(try await values("mrr", months) == [16.66, nil])  // 9.99 + 79.99 ÷ 12 = 16.6558…
            let today = "from=2026-01-11T00:00:00Z&to=2026-01-12T00:00:00Z&interval=day"
            #expect(try await values("revenue", today) == [79.99])  // the paid year only
            #expect(try await values("proceeds", today) == [55.99])  // 55.993
            // The grant is the only fact in the production view (a grant says no environment):
            // no sale, no subscription, nothing in MRR.
            #expect(try await values("revenue", today, environment: "Production") == [0])
            #expect(try await values("proceeds", today, environment: "Production") == [0])
            #expect(try await values("activeSubscriptions", today, environment: "Production") == [0])
            #expect(try await values("mrr", today, environment: "Production") == [0])
            let state = try await client.call(.get, "/v1/apps/alpha/customers/dave", key: Fixture.alphaKey)
            #expect((state.json["entitlements"] as? [[String: Any]])?.isEmpty == false)  // the grant gives access all the same
        }
    }
}
