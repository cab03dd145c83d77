import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// The figures of a chain the intake touched, for every environment its purchases are in,
/// computed from the chain's whole ledger (docs/read-side.md): written with the facts, so the
/// figures operators read never replay the ledger.
public enum ChainFigureUpdates {
    /// Whom a chain belongs to in the cohorts: the customer it is linked to (`customer`), else
    /// the customer its facts were recorded for (an operator's grants; the least id, should they
    /// name several), else the chain itself; the facts without a chain (`-`) belong to no one.
    package static func owner(of chain: String, customer: String?, ledger: some Collection<LedgerEntry>) -> String? {
        guard chain != "-" else { return nil }
        return (customer ?? ledger.compactMap(\.customerId).min()).map(FigureUpdate.owner(customer:)) ?? FigureUpdate.owner(chain: chain)
    }

    public static func updates(app: AppRuntime, chain: String, ledger: [LedgerEntry], customer: String? = nil, now: Date) -> [FigureUpdate] {
        var unique: [String: LedgerEntry] = [:]
        for entry in ledger { unique[entry.key] = entry }
        let history = PurchaseHistory(ledger: Array(unique.values))
        let environments = Set(history.purchases.values.map { $0.environment ?? "Production" }).intersection(["Production", "Sandbox"])
        let configuration = app.configuration
        return environments.sorted().map { environment in
            let analytics = SubscriptionAnalytics(catalog: configuration.catalog, configuration: configuration.analytics, environment: environment)
            return FigureUpdate(
                environment: environment, chain: chain, facts: unique.count, timeZone: configuration.analytics.timeZone,
                figures: analytics.figures(ofChain: history), customer: owner(of: chain, customer: customer, ledger: unique.values),
                retry: JobRecord.transitions(appId: configuration.id, chain: chain, runAt: now))
        }
    }
}
