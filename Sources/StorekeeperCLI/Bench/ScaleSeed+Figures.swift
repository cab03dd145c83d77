import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperServer
import StorekeeperStore

/// Where each chain's ledger rows sit in one slice's changesets: a chain's figures are computed
/// from all of its rows in the slice and go in the changeset that brings its last row, so the
/// store, which writes figures only when the chain's ledger holds the rows they were computed
/// from, finds them all there (docs/read-side.md, "Concurrency").
///
/// Only positions are kept (not copies of the entries), so the slice's memory stays what its
/// changesets take.
struct SliceChains {
    private var rows: [String: [(changeset: Int, entry: Int)]] = [:]
    private var completed: [Int: [String]] = [:]

    init(_ changesets: [Changeset]) {
        for (changesetIndex, changeset) in changesets.enumerated() {
            for (entryIndex, entry) in changeset.entries.enumerated() {
                rows[entry.fact.originalTransactionId ?? "-", default: []].append((changesetIndex, entryIndex))
            }
        }
        for (chain, places) in rows {
            // Every chain has at least one row: it is a key only because a row named it.
            completed[places[places.count - 1].changeset, default: []].append(chain)
        }
        for key in completed.keys { completed[key]?.sort() }
    }

    /// How many chains the slice has.
    var count: Int { rows.count }

    /// The chains whose last row of the slice is in changeset `index`.
    func chains(completedIn index: Int) -> [String] { completed[index] ?? [] }

    /// Every row of `chain` in the slice, in the changesets' order.
    func ledger(of chain: String, in changesets: [Changeset]) -> [LedgerEntry] {
        (rows[chain] ?? []).map { changesets[$0.changeset].entries[$0.entry] }
    }
}

extension ScaleSeed {
    /// The environments whose figures the seed builds and marks complete: every environment the
    /// server's figure build looks at at start (the seed's rows are all Production; Sandbox is
    /// complete and empty), so a server started on the seed builds nothing.
    static let figureEnvironments = ["Production", "Sandbox"]

    /// What computing the figures cost, added up over the slices.
    struct FigureCost: Codable, Sendable {
        /// Time spent in ``ChainFigureUpdates`` (the writing is part of the changesets' time).
        var seconds = 0.0
        /// Chain-and-environment updates written.
        var updates = 0
        /// Their rows: runs, items and churn spans, over every group.
        var rows = 0
    }

    /// The figure updates of the chains completed in changeset `index` of a slice, from their
    /// rows in the slice, as the intake computes them.
    func figures(completedIn index: Int, chains: SliceChains, changesets: [Changeset], app: AppRuntime, cost: inout FigureCost) -> [FigureUpdate] {
        let clock = ContinuousClock()
        let began = clock.now
        let updates = chains.chains(completedIn: index).flatMap { chain in
            ChainFigureUpdates.updates(app: app, chain: chain, ledger: chains.ledger(of: chain, in: changesets), now: end)
        }
        cost.seconds += (clock.now - began).seconds
        cost.updates += updates.count
        cost.rows += updates.reduce(0) { $0 + $1.figures.runs.count + $1.figures.items.count + $1.figures.churn.count }
        return updates
    }
}
