import Crypto
import Foundation
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Builds an app's figures in one environment from its ledger (docs/read-side.md): when they
/// were computed with other settings (time zone, catalog, commission rule) or never, they are
/// removed and built again chain by chain, a group at a time, resuming where a build stopped.
/// Until a build completes, the figures are not read (the routes replay the ledger).
public struct FigureBuild: Sendable {
    package let store: any StorekeeperStorage
    /// How many chains a group reads and writes at once.
    package var group = 500

    /// What figures depend on besides the facts, as a digest.
    public static func settings(of app: AppConfiguration) -> String {
        struct Settings: Encodable {
            var catalog: Catalog
            var timeZone: String
            var smallBusiness: Bool
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data =
            (try? encoder.encode(Settings(catalog: app.catalog, timeZone: app.analytics.timeZone, smallBusiness: app.analytics.smallBusiness)))
            ?? Data()
        return SHA256.hash(data: data).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether the figures of `app` in `environment` are complete and computed with its settings.
    package func isReady(_ app: AppConfiguration, environment: String) async throws -> Bool {
        guard let state = try await store.figureState(appId: app.id, environment: environment) else { return false }
        return state.complete && state.settings == Self.settings(of: app)
    }

    /// Brings the figures up to date; `progress` hears the chains built so far and the total.
    package func run(
        app: AppRuntime, environment: String, now: @Sendable () -> Date, progress: @Sendable (Int, Int) async -> Void = { _, _ in }
    ) async throws {
        let configuration = app.configuration
        let settings = Self.settings(of: configuration)
        var state = try await store.figureState(appId: app.id, environment: environment)
        if state?.settings != settings {
            try await store.resetFigures(appId: app.id, environment: environment, settings: settings)
            state = FigureState(settings: settings, resumeAfter: nil, complete: false)
        }
        guard let state, !state.complete else { return }
        let chains = try await store.knownChains(appId: app.id)
        let remaining = state.resumeAfter.map { after in chains.filter { $0 > after } } ?? chains
        var done = chains.count - remaining.count
        for first in stride(from: 0, to: remaining.count, by: group) {
            try Task.checkCancellation()
            let part = Array(remaining[first..<min(first + group, remaining.count)])
            let ledgers = try await store.ledgers(appId: app.id, originalTransactionIds: part)
            let customers = try await store.customers(appId: app.id, aliases: part.map(CustomerAlias.originalTransactionId))
            let at = now()
            var changeset = Changeset(appId: app.id, at: at)
            changeset.figures = part.flatMap { chain in
                ChainFigureUpdates.updates(
                    app: app, chain: chain, ledger: ledgers[chain] ?? [], customer: customers[.originalTransactionId(chain)], now: at
                ).filter { $0.environment == environment }
            }
            try await store.apply(changeset)
            try await store.recordFigureProgress(appId: app.id, environment: environment, settings: settings, resumeAfter: part.last, complete: false)
            done += part.count
            await progress(done, chains.count)
        }
        try await store.recordFigureProgress(appId: app.id, environment: environment, settings: settings, resumeAfter: nil, complete: true)
    }
}

/// The build of an app's figures, for the command line (`storekeeper analytics rebuild`).
public enum FigureRebuild {
    /// Builds the figures of `app` in `environment` in `store`: again from nothing when `force`
    /// or when they were computed with other settings, otherwise from where a build stopped.
    public static func run(
        app: AppConfiguration, environment: String, store: any StorekeeperStorage, force: Bool,
        progress: @escaping @Sendable (Int, Int) async -> Void
    ) async throws {
        if force { try await store.resetFigures(appId: app.id, environment: environment, settings: FigureBuild.settings(of: app)) }
        try await FigureBuild(store: store).run(
            app: try AppRuntime(configuration: app), environment: environment, now: { Date() }, progress: progress)
    }
}

/// At start, builds every app's figures that are missing or were computed with other
/// settings, in the background; the routes replay the ledger until each is complete.
package struct FigureBuilder: Service {
    package let apps: AppDirectory
    package let store: any StorekeeperStorage
    package let clock: @Sendable () -> Date
    package let logger: Logger

    package init(apps: AppDirectory, store: any StorekeeperStorage, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.apps = apps
        self.store = store
        self.clock = clock
        self.logger = logger
    }

    package static let environments = ["Production", "Sandbox"]

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            for app in apps.apps.values.sorted(by: { $0.id < $1.id }) {
                for environment in Self.environments {
                    while !Task.isCancelled {
                        do {
                            try await FigureBuild(store: store).run(app: app, environment: environment, now: clock)
                            break
                        } catch is CancellationError {
                            return
                        } catch {
                            logger.warning(
                                "building figures failed; trying again in a minute",
                                metadata: ["app": "\(app.id)", "environment": "\(environment)", "error": "\(InboxText.summary(of: error))"])
                            try? await Task.sleep(for: .seconds(60))
                        }
                    }
                }
            }
            // Stay until the server stops (a service that returns stops the others).
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
    }
}
