import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Where every figure an operator reads comes from (the metric routes, the cohorts, the
/// dashboard): the figures the intake maintains in the database, once built for the app's
/// settings (docs/read-side.md). Until then (a build under way after an upgrade or a change of
/// time zone or catalog) a small ledger is replayed in memory into the same rows; a large one
/// is not: the read is refused with ``FiguresBuilding`` (503, try again) rather than holding
/// the whole ledger in memory for each request.
package struct FigureSource: Sendable {
    package let store: any StorekeeperStorage
    /// The most ledger entries replayed while the figures are being built; `nil`: any number
    /// (the command line, where the operator asked for it).
    package var replayLimit: Int? = Self.serverReplayLimit

    package init(store: any StorekeeperStorage, replayLimit: Int? = Self.serverReplayLimit) {
        self.store = store
        self.replayLimit = replayLimit
    }

    /// What the server replays at most while an app's figures are being built.
    package static let serverReplayLimit = 20_000

    /// Where an app's figures are read from.
    package enum Reading: Sendable {
        /// The figures maintained in the database.
        case built
        /// The ledger, replayed in memory: the figures are being built.
        case replay
    }

    /// Where `app`'s figures in `environment` are read from now: the built figures, else the
    /// ledger when it is within ``replayLimit``. Throws ``FiguresBuilding`` otherwise. Every read
    /// of figures (metrics, cohorts, dashboard, experiment results) asks here.
    package func reading(of app: AppConfiguration, environment: String) async throws -> Reading {
        if try await FigureBuild(store: store).isReady(app, environment: environment) { return .built }
        if let replayLimit, try await store.ledgerCount(appId: app.id, limit: replayLimit + 1) > replayLimit {
            throw FiguresBuilding(appId: app.id, environment: environment)
        }
        return .replay
    }

    /// The sums of `app`'s figures in `environment`.
    package func sums(of app: AppConfiguration, environment: String) async throws -> any FigureSums {
        switch try await reading(of: app, environment: environment) {
        case .built:
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: app.analytics.timeZone) ?? .gmt)
            return try await store.figureSums(appId: app.id, environment: environment, calendar: calendar)
        case .replay:
            return try await MetricsReport.replayedFigures(of: app, environment: environment, store: store)
        }
    }
}

/// The figures of an app are being built and its ledger is too large to replay meanwhile.
package struct FiguresBuilding: Error, Sendable, CustomStringConvertible {
    package var appId: String
    package var environment: String

    package var description: String {
        "the figures of \(appId) in \(environment) are being built (storekeeper analytics rebuild shows the progress); try again in a minute"
    }
}
