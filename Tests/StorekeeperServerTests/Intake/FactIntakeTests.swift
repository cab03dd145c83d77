import AppStoreModels
import Foundation
import HummingbirdTesting
import Logging
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine
import Synchronization
import Testing

@testable import StorekeeperApps
@testable import StorekeeperJobs
@testable import StorekeeperServer

/// Every source hands its facts to the one intake: the same Apple facts give the same ledger
/// rows and the same status events whichever way they arrive.
@Suite("One intake for every fact")
struct FactIntakeTests {
    static let t0 = Fixture.t0
    static let day = Fixture.day
    static let chain = "5001"

    /// What a source left behind: the chain's ledger keys and its status events.
    struct Outcome: Equatable, CustomStringConvertible {
        var keys: [String]
        var statusEvents: [String]
        var description: String { "keys \(keys) events \(statusEvents)" }
    }

    enum Source: String, CaseIterable, CustomTestStringConvertible {
        case notificationV2, purchase, reconciliation, importer
        var testDescription: String { rawValue }
    }

    static func transaction(signed: Date, revoked: Date? = nil) throws -> JWSTransactionDecodedPayload {
        try SignedData.transaction(
            id: chain, original: chain, purchase: t0, expires: t0 + 30 * day, signed: signed, revoked: revoked)
    }

    static func statusEvents(_ store: any StorekeeperStorage) async throws -> [String] {
        let events = try await store.events(appId: "alpha", customerId: "carol", limit: 100).filter { $0.type == .statusChanged }
        return events.map(describe)
    }

    static func describe(_ event: EventRecord) -> String {
        let who = "\(event.customerId ?? "-") \(event.originalTransactionId ?? "-")"
        return "\(event.idempotencyKey) \(who) \(event.details.json) \(event.occurredAt.millisecondsSince1970)"
    }

    static func runner(_ harness: ServerHarness) throws -> JobRunner {
        var logger = Logger(label: "test.intake")
        logger.logLevel = .critical
        return JobRunner(
            apps: try AppDirectory(configuration: harness.configuration), store: harness.store, clients: AppleClients(),
            clock: { harness.clock.now }, logger: logger)
    }

    /// Sends the signed transaction (and the renewal info, where the source carries one) through `source`.
    static func deliver(_ source: Source, harness: ServerHarness, client: some TestClientProtocol) async throws -> Outcome {
        let signedAt = t0 + 3600
        let transaction = try transaction(signed: signedAt)
        let app = try #require(try AppDirectory(configuration: harness.configuration).apps["alpha"])
        harness.clock.set(t0 + 7200)
        try await harness.store.apply(
            Changeset(
                appId: "alpha", at: t0, links: [CustomerLink(customerId: "carol", aliases: [.originalTransactionId(chain)])]))
        switch source {
        case .notificationV2:
            let body = try SignedData.notification(
                harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: signedAt, transaction: transaction, renewal: nil)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
            try await harness.processor.drain()
        case .purchase:
            let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: body).status == 200)
        case .reconciliation:
            try await runner(harness).record(
                app: app, signedTransactions: [try harness.ca.signTransaction(transaction)], signedRenewals: [],
                source: .appStoreServerAPI, now: harness.clock.now)
        case .importer:
            try await runner(harness).record(
                app: app, signedTransactions: [try harness.ca.signTransaction(transaction)], signedRenewals: [], source: .import,
                binding: .imported(customerId: "carol", chain: chain), now: harness.clock.now)
        }
        let keys = try await harness.store.ledger(appId: "alpha", originalTransactionId: chain).map(\.key)
        return Outcome(keys: keys, statusEvents: try await statusEvents(harness.store))
    }

    @Test("the same signed transaction through every source gives the same ledger key and the same status event", arguments: Source.allCases)
    func sameFactsEverySource(source: Source) async throws {
        let reference = Outcome(
            keys: ["purchase:\(Self.chain):s\((Self.t0 + 3600).millisecondsSince1970)"],
            statusEvents: [
                "status:\(Self.chain):purchase:\(Self.chain):s\((Self.t0 + 3600).millisecondsSince1970) carol \(Self.chain) "
                    + #"{"expiresDate":"2026-01-31T00:00:00.000Z","productId":"pro.monthly","to":"active"}"#
                    + " \((Self.t0 + 7200).millisecondsSince1970)"
            ])
        try await ServerHarness.run(.sqlite) { harness, client in
            let outcome = try await Self.deliver(source, harness: harness, client: client)
            #expect(outcome == reference)
            // The same facts again, by the same source, add nothing.
            let again = try await Self.deliver(source, harness: harness, client: client)
            #expect(again == reference)
            // The chain's figures were written with its facts: they are the replay's.
            let app = harness.configuration.apps[0]
            let days = try ReportingInterval.day.intervals(from: Self.t0, to: Self.t0 + 40 * Self.day, timeZone: .gmt)
            let ledger = try await harness.store.ledger(appId: "alpha", originalTransactionId: Self.chain)
            var counted = 0
            for environment in ["Production", "Sandbox"] {
                let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: environment)
                let sums = try await harness.store.figureSums(
                    appId: "alpha", environment: environment, calendar: FigureCalendar(timeZone: TimeZone(identifier: app.analytics.timeZone)!))
                for metric in [MetricName.activeSubscriptions, .newSubscriptions] {
                    let replay = analytics.series(metric, of: [PurchaseHistory(ledger: ledger)], over: days, now: harness.clock.now)
                    #expect(try await analytics.series(metric, over: days, now: harness.clock.now, from: sums) == replay, "\(environment) \(metric)")
                    counted += replay.filter { ($0.value ?? 0) > 0 }.count
                }
            }
            #expect(counted > 0)
        }
    }

    @Test("a chain Apple told of first counts as its own customer in the cohorts until its customer posts it: then it joins the customer's cohort")
    func linkedChainJoinsItsCustomersCohort() async throws {
        try await ServerHarness.run(.sqlite) { harness, client in
            let app = harness.configuration.apps[0]
            harness.clock.set(Self.t0 + 20 * Self.day)
            func post(_ transaction: JWSTransactionDecodedPayload) async throws {
                let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(transaction))\"}"
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: body).status == 200)
            }
            func customers() async throws -> Int {
                let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: "Sandbox")
                let sums = try await harness.store.figureSums(
                    appId: "alpha", environment: "Sandbox", calendar: FigureCalendar(timeZone: TimeZone(identifier: app.analytics.timeZone)!))
                let cohorts = try await analytics.cohorts(
                    from: sums, from: Self.t0, to: Self.t0 + 10 * Self.day, period: .month, now: harness.clock.now)
                return cohorts.map(\.customers).reduce(0, +)
            }
            // Carol's first chain, posted by the app.
            try await post(
                try SignedData.transaction(
                    id: "5002", original: "5002", purchase: Self.t0 + Self.day, expires: Self.t0 + 31 * Self.day, signed: Self.t0 + Self.day))
            // Her second, told by Apple without a token: nobody's yet.
            let second = try SignedData.transaction(
                id: "5003", original: "5003", purchase: Self.t0 + 2 * Self.day, expires: Self.t0 + 32 * Self.day, signed: Self.t0 + 2 * Self.day)
            let notification = try SignedData.notification(
                harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: Self.t0 + 2 * Self.day, transaction: second, renewal: nil)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: notification).status == 200)
            try await harness.processor.drain()
            #expect(try await customers() == 2)
            // Carol posts it: no new fact, but the chain is hers now, and so is its place in the cohort.
            try await post(second)
            #expect(try await customers() == 1)
        }
    }

    @Test("the same signed receipt posted by the app or carried by a V1 notification gives the same ledger key and status event")
    func sameReceiptEverySource() async throws {
        let outcomes = Mutex<[Outcome]>([])
        for viaNotification in [false, true] {
            try await ServerHarness.run(.sqlite) { harness, client in
                let receipt = try TestReceipts.receipt(
                    purchases: [("pro.monthly", "6001", "6001", Self.t0, Self.t0 + 30 * Self.day)], created: Self.t0 + 3600)
                harness.clock.set(Self.t0 + 7200)
                try await harness.store.apply(
                    Changeset(appId: "alpha", at: Self.t0, links: [CustomerLink(customerId: "carol", aliases: [.originalTransactionId("6001")])]))
                if viaNotification {
                    let body: [String: Any] = [
                        "notification_type": "INITIAL_BUY", "password": "alpha-shared-secret", "environment": "Sandbox",
                        "unified_receipt": ["latest_receipt": receipt, "status": 0, "environment": "Sandbox"],
                    ]
                    let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                    #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: text).status == 200)
                    try await harness.processor.drain()
                } else {
                    let body = #"{"receipt": "\#(receipt)"}"#
                    #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: body).status == 200)
                }
                let keys = try await harness.store.ledger(appId: "alpha", originalTransactionId: "6001").map(\.key)
                let outcome = Outcome(keys: keys, statusEvents: try await Self.statusEvents(harness.store))
                outcomes.withLock { $0.append(outcome) }
            }
        }
        let both = outcomes.withLock { $0 }
        #expect(both.count == 2)
        #expect(both.first == both.last, "\(both)")
        #expect(both.first?.keys == ["purchase:6001:r\((Self.t0 + 30 * Self.day).millisecondsSince1970):-:0"])
        #expect(both.first?.statusEvents.count == 1)
    }

    @Test("the operator's revocation emits the same status event as Apple's refund of the same period", arguments: ServerBackend.available)
    func manualRevokeMatchesRefund(backend: ServerBackend) async throws {
        let recorded = Mutex<[String]>([])
        for manual in [false, true] {
            try await ServerHarness.run(backend) { harness, client in
                let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(try Self.transaction(signed: Self.t0)))\"}"
                harness.clock.set(Self.t0 + 60)
                #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
                let refundAt = Self.t0 + 2 * Self.day
                harness.clock.set(refundAt)
                if manual {
                    let body = #"{"action": "revoke", "transactionId": "\#(Self.chain)", "reason": "chargeback"}"#
                    #expect(try await client.call(.post, "/v1/apps/alpha/customers/carol/grants", key: Fixture.alphaAdmin, body: body).status == 201)
                } else {
                    let body = try SignedData.notification(
                        harness.ca, type: "REFUND", signed: refundAt,
                        transaction: try Self.transaction(signed: refundAt, revoked: refundAt), renewal: nil)
                    #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
                    try await harness.processor.drain()
                }
                #expect(try await client.status("alpha", Self.chain, key: Fixture.alphaKey) == "revoked")
                let events = try await harness.store.events(appId: "alpha", customerId: "carol", limit: 100).filter { $0.type == .statusChanged }
                #expect(events.count == 2)
                if let last = events.last {
                    let change = "\(last.type) \(last.customerId ?? "-") \(last.originalTransactionId ?? "-") \(last.details.json) \(last.occurredAt)"
                    recorded.withLock { $0.append(change) }
                }
            }
        }
        let changes = recorded.withLock { $0 }
        #expect(changes.count == 2)
        #expect(changes.first == changes.last, "\(changes)")
        #expect(changes.first?.contains(#""from":"active""#) == true && changes.first?.contains(#""to":"revoked""#) == true)
    }
}
