import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StorekeeperApps
import StorekeeperStore
import Tracing

extension EventDispatcher {
    /// Sends one destination's deliveries: webhooks and chat messages one by one, analytics
    /// vendors in batches.
    package func send(_ deliveries: [OutboxDelivery]) async throws {
        guard let first = deliveries.first else { return }
        let now = clock()
        let started = ContinuousClock.now
        guard let app = apps.apps[first.appId] else {
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: nil, error: "the app is no longer configured", outcome: .dead)
            }
            return
        }
        let destination = "\(app.id)/\(first.destination)"
        if let webhook = app.webhooks().first(where: { $0.id == first.destination }) {
            try await sendEach(deliveries.map { [$0] }, to: destination) { unit in
                for delivery in unit { try await sendWebhook(delivery, webhook: webhook, app: app) }
            }
        } else if let integration = app.configuration.integrations.first(where: { $0.id == first.destination }) {
            switch integration.type {
            case .slack, .telegram:
                try await sendEach(deliveries.map { [$0] }, to: destination) { unit in
                    for delivery in unit { try await sendMessage(delivery, integration: integration, app: app) }
                }
            case .amplitude, .mixpanel:
                try await sendEach([deliveries], to: destination) { try await sendBatches($0, integration: integration, app: app) }
            case .revenuecat:
                try await sendEach(deliveries.map { [$0] }, to: destination) { unit in
                    for delivery in unit { try await sendRevenueCat(delivery, integration: integration, app: app) }
                }
            }
        } else {
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: nil, error: "the destination is no longer configured", outcome: .dead)
            }
        }
    }

    /// Sends `units` (a delivery each, or a vendor's batch) one after the other with `send`
    /// while `destination` is not paused; once it is (it answered 429, here or in another pass),
    /// the rest are handed back unsent, due when the pause ends.
    package func sendEach(_ units: [[OutboxDelivery]], to destination: String, send: ([OutboxDelivery]) async throws -> Void) async throws {
        for (index, unit) in units.enumerated() {
            if let until = await pacing.pausedUntil(destination, now: clock()) {
                try await store.postponeDeliveries(ids: units[index...].flatMap { $0.map(\.id) }, owner: owner, until: until)
                return
            }
            try await send(unit)
        }
    }

    /// Whether `url` may be reached for `app` now (private addresses only when the app allows them).
    package func refusal(_ url: String, app: AppRuntime) -> String? {
        guard app.configuration.allowPrivateNetworks != true else { return nil }
        guard let host = URL(string: url)?.host else { return "refused: the URL is not valid" }
        return PrivateNetworks.resolvesPrivate(host: host) ? "refused: \(host) resolves to a loopback or private address" : nil
    }

    /// What the delivery's event says, with the customer's aliases as they are now.
    package func data(_ delivery: OutboxDelivery) async throws -> EventData {
        let aliases = try await delivery.event.customerId.asyncMap { try await store.aliases(appId: delivery.appId, customerId: $0) } ?? []
        return EventData(delivery.event, aliases: aliases)
    }

    /// What a batch vendor's refusal of some records says of the records it does not name.
    package enum Unnamed {
        /// They were imported (Mixpanel's strict mode).
        case delivered
        /// Nothing was imported: they go again without the refused ones (Amplitude).
        case notImported
    }

    /// Posts `body` and records the outcome for `deliveries` (one request's worth). `refusals`
    /// reads an answer that names refused records (by delivery id, with why): those are dead,
    /// and the others are delivered or, when `unnamed` says nothing was imported, answered
    /// back to be posted again. A 429 pauses the whole destination (``Pacing``).
    ///
    /// Each attempt is a span in the trace of the work that recorded its event
    /// (EventDispatcher+Tracing.swift).
    @discardableResult
    package func post(
        _ deliveries: [OutboxDelivery], url: String, headers: [(String, String)], body: Data, app: AppRuntime,
        refusals: (WebhookAnswer) -> [Int64: String]? = { _ in nil }, unnamed: Unnamed = .delivered
    ) async throws -> [OutboxDelivery] {
        try await withDeliverySpan(deliveries, app: app) { span in
            try await attempt(deliveries, url: url, headers: headers, body: body, app: app, refusals: refusals, unnamed: unnamed, span: span)
        }
    }

    private func attempt(
        _ deliveries: [OutboxDelivery], url: String, headers: [(String, String)], body: Data, app: AppRuntime,
        refusals: (WebhookAnswer) -> [Int64: String]?, unnamed: Unnamed, span: any Span
    ) async throws -> [OutboxDelivery] {
        let now = clock()
        let started = ContinuousClock.now
        guard let first = deliveries.first else { return [] }
        if let refusal = refusal(url, app: app) {
            Self.describe(span, outcome: "refused", error: "the URL is refused (invalid, or a private address)")
            for delivery in deliveries { try await finish(delivery, at: now, started: started, status: nil, error: refusal, outcome: .dead) }
            return []
        }
        guard let transport else { throw CancellationError() }
        let answer: WebhookAnswer
        do {
            answer = try await transport.post(url: url, headers: headers, body: body, timeout: timeout)
        } catch {
            let message = String(String(describing: error).prefix(300))
            Self.describe(span, outcome: "failed", error: "the request failed: \(type(of: error))")
            for delivery in deliveries {
                try await finish(
                    delivery, at: now, started: started, status: nil, error: message,
                    outcome: retry(after: delivery.attempts, at: now, retryAfter: nil))
            }
            return []
        }
        if span.isRecording { span.attributes["http.response.status_code"] = answer.status }
        if let refused = refusals(answer) {
            Self.describe(span, outcome: "partly_refused", error: nil)
            var again: [OutboxDelivery] = []
            for delivery in deliveries {
                if let error = refused[delivery.id] {
                    try await finish(delivery, at: now, started: started, status: answer.status, error: error, outcome: .dead)
                } else if unnamed == .delivered {
                    try await finish(delivery, at: now, started: started, status: answer.status, error: nil, outcome: .delivered)
                } else {
                    again.append(delivery)
                }
            }
            return again
        }
        switch answer.status {
        case 200..<300:
            Self.describe(span, outcome: "delivered", error: nil)
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: answer.status, error: nil, outcome: .delivered)
            }
        case 410:
            Self.describe(span, outcome: "dead", error: "410 Gone: the destination is disabled")
            try await store.disableDestination(appId: app.id, destination: first.destination, reason: "the endpoint answered 410 Gone", at: now)
            logger.warning("destination disabled: its endpoint answered 410", metadata: ["app": "\(app.id)", "destination": "\(first.destination)"])
            for delivery in deliveries {
                try await finish(delivery, at: now, started: started, status: 410, error: "410 Gone: the destination is disabled", outcome: .dead)
            }
        default:
            let retryAfter = [429, 502, 503, 504].contains(answer.status) ? (answer.retryAfter ?? Self.telegramRetryAfter(answer.body)) : nil
            if answer.status == 429 {
                // The destination asked everyone to wait, not only this message.
                let asked = retryAfter.flatMap { Self.seconds(retryAfter: $0, now: now) } ?? Self.unspecifiedPause
                await pacing.pause("\(app.id)/\(first.destination)", until: now.addingTimeInterval(min(asked, 86_400)))
            }
            let reason = "HTTP \(answer.status)" + (answer.body.isEmpty ? "" : ": " + String(decoding: answer.body.prefix(200), as: UTF8.self))
            Self.describe(span, outcome: "failed", error: "HTTP \(answer.status)")
            for delivery in deliveries {
                try await finish(
                    delivery, at: now, started: started, status: answer.status, error: reason,
                    outcome: retry(after: delivery.attempts, at: now, retryAfter: retryAfter))
            }
        }
        return []
    }

}
