import AppStoreModels
import Foundation
import StorekeeperStore
import SubscriptionEngine
import Testing

@testable import StorekeeperApps
@testable import StorekeeperHTTP
@testable import StorekeeperServer

/// Where every read of figures comes from (``FigureSource``): the built figures, else the
/// ledger replayed while it is small, else "being built" (503), whichever read asks.
@Suite("Analytics: where figures are read from")
struct FigureSourceTests {
    static let t0 = Fixture.t0
    static let day = Fixture.day

    @Test("before a build a small ledger is replayed and a large one is refused, the command line replays any; once built, the figures are read")
    func readingFollowsTheBuild() async throws {
        let store = InMemoryStore()
        let configuration = AppConfiguration(id: "alpha", bundleId: "com.example.alpha", appAppleId: 1)
        let app = try AppRuntime(configuration: configuration)
        let entries = (0..<5).map { number in
            let start = Self.t0 + Double(number) * Self.day
            let fact = PurchaseFact(
                transactionId: "\(700 + number)", originalTransactionId: "\(700 + number)", productId: "pro.monthly",
                productType: .autoRenewable, subscriptionGroupIdentifier: "pro", purchaseDate: start, expiresDate: start + 30 * Self.day,
                price: Money(milliunits: 4_990, currency: "USD"), signedDate: start, environment: "Production", storefront: "USA")
            return LedgerEntry(appId: "alpha", fact: .purchase(fact), source: .storeKit2, recordedAt: start)
        }
        try await store.apply(Changeset(appId: "alpha", at: Self.t0, entries: entries))

        #expect(try await FigureSource(store: store, replayLimit: 5).reading(of: configuration, environment: "Production") == .replay)
        #expect(try await FigureSource(store: store, replayLimit: nil).reading(of: configuration, environment: "Production") == .replay)
        await #expect(throws: FiguresBuilding.self) {
            try await FigureSource(store: store, replayLimit: 4).reading(of: configuration, environment: "Production")
        }
        // The replayed sums answer meanwhile.
        let replayed = try await FigureSource(store: store, replayLimit: 5).sums(of: configuration, environment: "Production")
        let at = Self.t0 + 10 * Self.day
        #expect(
            try await replayed.snapshotSums(group: "", at: [at])[0].snapshot(at: at, configuration: configuration.analytics).activeSubscriptions == 5)

        try await FigureBuild(store: store).run(app: app, environment: "Production", now: { Self.t0 + 10 * Self.day })
        #expect(try await FigureSource(store: store, replayLimit: 4).reading(of: configuration, environment: "Production") == .built)
        let built = try await FigureSource(store: store, replayLimit: 0).sums(of: configuration, environment: "Production")
        #expect(
            try await built.snapshotSums(group: "", at: [at])[0].snapshot(at: at, configuration: configuration.analytics).activeSubscriptions == 5)

        // Another time zone makes the figures stale until they are built again.
        var changed = configuration
        changed.analytics.timeZone = "Europe/Berlin"
        await #expect(throws: FiguresBuilding.self) {
            try await FigureSource(store: store, replayLimit: 4).reading(of: changed, environment: "Production")
        }
    }
}
