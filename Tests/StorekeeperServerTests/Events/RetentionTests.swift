import Foundation
import Logging
import StorekeeperApps
import StorekeeperJobs
import StorekeeperStore
import Testing

/// Retention of the tables that grow (docs/server.md, "Tables that grow"): what goes, what
/// stays, and that an event removed is not derived again when its chain changes.
@Suite("Retention of old rows")
struct RetentionTests {
    static func retention(_ store: any StorekeeperStorage, _ configuration: RetentionConfiguration, at now: Date) -> TableRetention {
        var logger = Logger(label: "test.retention")
        logger.logLevel = .warning
        var retention = TableRetention(store: store, configuration: configuration, clock: { now }, logger: logger)
        retention.batch = 2
        return retention
    }

    @Test(
        "a chain's events removed by retention are not sent again when the chain changes; the new ones are",
        arguments: ServerBackend.available)
    func eventsNotDerivedAgain(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let steps = try Lifecycle().steps(harness.ca)
            for step in steps.prefix(2) {
                harness.clock.set(step.lookAt - 3600)
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: step.body).status == 200)
                try await harness.processor.drain()
            }
            let before = try await harness.store.eventKeys(appId: "alpha", originalTransactionId: "1001")
            #expect(before.keys.count >= 2 && before.horizon == nil)
            // 500 days on, events are kept 400: all of them go, in passes of two.
            let removed = try await Self.retention(harness.store, RetentionConfiguration(), at: Fixture.t0 + 500 * Fixture.day).prune()
            #expect(removed[.events] == before.keys.count)
            let pruned = try await harness.store.eventKeys(appId: "alpha", originalTransactionId: "1001")
            #expect(pruned.keys.isEmpty && pruned.horizon != nil)
            // The recovery arrives: the chain's whole ledger is weighed again; only what is new goes out.
            harness.clock.set(steps[2].lookAt - 3600)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: steps[2].body).status == 200)
            try await harness.processor.drain()
            let after = try await harness.store.eventKeys(appId: "alpha", originalTransactionId: "1001")
            #expect(!after.keys.isEmpty)
            #expect(after.keys.isDisjoint(with: before.keys))
            #expect(try await client.status("alpha", "1001", key: Fixture.alphaKey) == "active")
        }
    }

    @Test("a table kept for good (null) loses nothing; the others lose only what outlived their days", arguments: ServerBackend.available)
    func keptForGood(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let steps = try Lifecycle().steps(harness.ca)
            harness.clock.set(steps[0].lookAt - 3600)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: steps[0].body).status == 200)
            try await harness.processor.drain()
            let id = try #require(try await harness.store.notifications(appId: "alpha", filter: NotificationFilter()).first?.id)
            let forGood = RetentionConfiguration(
                eventsDays: nil, deliveriesDays: nil, deliveryAttemptsDays: nil, inboxBodiesDays: nil, auditDays: nil)
            #expect(try await Self.retention(harness.store, forGood, at: Fixture.t0 + 5000 * Fixture.day).prune().isEmpty)
            #expect(try await harness.store.notification(id: id)?.body.isEmpty == false)
            // Bodies kept 90 days: not yet at 80, gone at 100; the row and the state stay.
            let bodies = RetentionConfiguration(eventsDays: nil, deliveriesDays: nil, deliveryAttemptsDays: nil, inboxBodiesDays: 90, auditDays: nil)
            #expect(try await Self.retention(harness.store, bodies, at: Fixture.t0 + 80 * Fixture.day).prune().isEmpty)
            #expect(try await Self.retention(harness.store, bodies, at: Fixture.t0 + 100 * Fixture.day).prune() == [.inboxBodies: 1])
            let row = try #require(try await harness.store.notification(id: id))
            #expect(row.body.isEmpty && row.state == .processed)
            let api = try await client.call(.get, "/v1/apps/alpha/notifications/\(id)", key: Fixture.alphaAdmin)
            #expect(api.status == 200)
            #expect(api.json["body"] == nil && api.json["state"] as? String == "processed")
            #expect(!(try await harness.store.eventKeys(appId: "alpha", originalTransactionId: "1001").keys.isEmpty))
        }
    }

    @Test("retention days: null keeps for good, a key left out takes the default, less than a day or more than a century is refused")
    func configuration() throws {
        let decoded = try JSONDecoder().decode(RetentionConfiguration.self, from: Data(#"{"auditDays": null, "eventsDays": 30}"#.utf8))
        #expect(decoded.auditDays == nil && decoded.eventsDays == 30 && decoded.inboxBodiesDays == 90 && decoded.deliveriesDays == 30)
        for setting in [#"{"deliveriesDays": 0.5}"#, #"{"auditDays": 1e300}"#, #"{"eventsDays": -3}"#] {
            #expect(throws: ConfigurationError.self, "\(setting)") {
                try JSONDecoder().decode(ServerConfiguration.self, from: Data(#"{"retention": \#(setting)}"#.utf8)).validate()
            }
        }
    }
}
