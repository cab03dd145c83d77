import Foundation
import HummingbirdTesting
import Logging
import StorekeeperStore
import Testing

@testable import StorekeeperJobs
@testable import StorekeeperServer

/// `buildServer` gives a driver of simulated time (the demo, `storekeeper experiment`) the
/// server's own work: one ``NotificationDoor`` behind the route and the work, so what the door
/// learned (its verified decode, its counts) is what the work sees.
@Suite("The server's composition")
struct ServerCompositionTests {
    @Test("the work from buildServer uses the door's verified decode and counts: one door, not a second that starts empty")
    func oneDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-compose-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, ca) = try Fixture.configuration(directory: directory)
        try await withServerStore(.sqlite) { store in
            for app in configuration.apps {
                try await store.saveApp(AppRecord(id: app.id, bundleId: app.bundleId, createdAt: Fixture.t0))
            }
            var logger = Logger(label: "test.composition")
            logger.logLevel = .warning
            var dependencies = ServerDependencies(store: store, clock: { Fixture.t0 }, logger: logger, runsInboxWorker: false)
            dependencies.runsDispatcher = false
            let (application, work) = try buildServer(configuration: configuration, dependencies: dependencies)
            try await application.test(.router) { client in
                let body = try VerifiedAtDoorTests.body(ca, transactionSigner: ca, chain: "compose-1")
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
                // The door kept its decode and counted the body where the work reads them.
                #expect(work.processor.door.verified.count == 1)
                #expect(work.scheduler.runner.door.counters.lastHour(appId: "alpha", now: Fixture.t0).admitted == 1)
                // A step of the work processes the row with the door's decode (the entry is used).
                #expect(try await work.step() == 1)
                #expect(work.processor.door.verified.count == 0)
                let subscription = try await client.call(.get, "/v1/apps/alpha/subscriptions/compose-1", key: Fixture.alphaKey)
                #expect(subscription.status == 200, "\(subscription.text)")
            }
        }
    }
}
