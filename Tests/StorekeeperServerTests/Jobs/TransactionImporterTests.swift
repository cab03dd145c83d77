import Foundation
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Testing

@Suite("Import")
struct TransactionImporterTests {
    @Test("import pulls every page of each history into the ledger and resumes from its progress file", arguments: ServerBackend.available)
    func importsAndResumes(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let horizon = Fixture.t0.addingTimeInterval(70 * Fixture.day)
            harness.clock.set(horizon)
            let apple = FakeApple(ca: harness.ca, clock: harness.clock, count: 4, horizon: horizon)
            let importer = TransactionImporter(
                apps: try AppDirectory(configuration: harness.configuration), store: harness.store,
                clients: AppleClients(["alpha": apple.client]), clock: { harness.clock.now }, logger: ReconciliationTests.quiet)
            let progress = FileManager.default.temporaryDirectory.appendingPathComponent("sk-import-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: progress) }
            let items = try TransactionImporter.items(fromText: "customerId,originalTransactionId\nc-0,90000\nc-1,90001\n", withCustomers: true)
            let first = try await importer.run(appId: "alpha", items: items, progressFile: progress)
            #expect(first.imported == 2, "\(first)")
            #expect(first.failed == 0, "\(first)")
            #expect(first.transactions == 4)  // 90000: 3 periods by day 70; 90001 cancelled after one
            #expect((apple.callCounts["transactionHistory"] ?? 0) == 4)  // one page per transaction
            let catalog = try AppDirectory(configuration: harness.configuration).apps["alpha"]!.catalog
            for chain in ["90000", "90001"] {
                let truth = try #require(try apple.trueState(chain, at: horizon, catalog: catalog))
                #expect(try await client.status("alpha", chain, key: Fixture.alphaKey) == truth.status.rawValue)
            }
            #expect(try await harness.store.customer(appId: "alpha", alias: .originalTransactionId("90000")) == "c-0")
            let again = try await importer.run(
                appId: "alpha", items: items + [.init(originalTransactionId: "90002")], progressFile: progress)
            #expect(again.skipped == 2 && again.imported == 1)
            #expect(try TransactionImporter.items(fromText: "90000\n# comment\n\n90001\n", withCustomers: false).count == 2)
            #expect(throws: (any Error).self) { try TransactionImporter.items(fromText: "not an id!\n", withCustomers: false) }
        }
    }
}
