import Foundation
import StorekeeperStore
import Synchronization

/// The webhooks of an app that were added through the admin API, as this process last read them
/// from the database: the API replaces them at once after a change, and dispatchers reread them
/// when they are older than ``maximumAge`` (so every replica follows within seconds).
package final class WebhookBook: Sendable {
    package static let maximumAge: TimeInterval = 10
    private let state = Mutex<(loaded: Date?, webhooks: [WebhookConfiguration])>((nil, []))

    package var webhooks: [WebhookConfiguration] { state.withLock { $0.webhooks } }

    package func replace(_ webhooks: [WebhookConfiguration], at date: Date) {
        state.withLock { $0 = (date, webhooks) }
    }

    package func isStale(at date: Date) -> Bool {
        state.withLock { state in state.loaded.map { date.timeIntervalSince($0) > Self.maximumAge || date < $0 } ?? true }
    }
}

extension WebhookConfiguration {
    package init(_ stored: StoredWebhook) {
        self.init(id: stored.id, url: stored.url, secret: stored.secrets.last ?? "", events: stored.events, environments: stored.environments)
        secrets = stored.secrets.count > 1 ? Array(stored.secrets.dropLast()) : nil
    }
}

extension AppRuntime {
    /// The app's webhooks: the configuration's, then those added through the admin API.
    package func webhooks() -> [WebhookConfiguration] {
        configuration.webhooks + storedWebhooks.webhooks.filter { stored in !configuration.webhooks.contains { $0.id == stored.id } }
    }

    /// Where an event of `type` in `environment` goes: the webhooks and integrations that want it.
    package func destinations(type: EventType, environment: String?) -> [String] {
        webhooks().filter { $0.wants(type: type.rawValue, environment: environment) }.map(\.id)
            + configuration.integrations.filter { $0.wants(type: type.rawValue, environment: environment) }.map(\.id)
    }
}

extension AppDirectory {
    /// Rereads every app's stored webhooks (at start, after a change, when they are stale).
    package func reloadWebhooks(store: any EventOutbox, now: Date) async throws {
        let stored = Dictionary(grouping: try await store.storedWebhooks(appId: nil), by: \.appId)
        for (id, app) in apps {
            app.storedWebhooks.replace((stored[id] ?? []).map(WebhookConfiguration.init), at: now)
        }
    }
}
