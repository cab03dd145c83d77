import Foundation
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// The figures of a chain the intake touched, for every environment its purchases are in,
/// computed from the chain's whole ledger (docs/read-side.md): written with the facts, so the
/// figures operators read never replay the ledger.
enum ChainFigureUpdates {
    static func updates(app: AppRuntime, chain: String, ledger: [LedgerEntry], now: Date) -> [FigureUpdate] {
        var unique: [String: LedgerEntry] = [:]
        for entry in ledger { unique[entry.key] = entry }
        let history = PurchaseHistory(ledger: Array(unique.values))
        let environments = Set(history.purchases.values.map { $0.environment ?? "Production" }).intersection(["Production", "Sandbox"])
        let configuration = app.configuration
        return environments.sorted().map { environment in
            let analytics = SubscriptionAnalytics(catalog: configuration.catalog, configuration: configuration.analytics, environment: environment)
            return FigureUpdate(
                environment: environment, chain: chain, facts: unique.count, timeZone: configuration.analytics.timeZone,
                figures: analytics.figures(ofChain: history), retry: JobRecord.transitions(appId: configuration.id, chain: chain, runAt: now))
        }
    }
}
