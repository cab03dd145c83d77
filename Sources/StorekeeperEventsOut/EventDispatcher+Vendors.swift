import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StorekeeperApps
import StorekeeperStore

/// The ways a destination is sent to: a signed webhook, a chat message (Slack, Telegram), an
/// analytics vendor's batch (Amplitude, Mixpanel), a RevenueCat-format webhook.
extension EventDispatcher {
    package func sendWebhook(_ delivery: OutboxDelivery, webhook: WebhookConfiguration, app: AppRuntime) async throws {
        let data = try await data(delivery)
        let body = WebhookMessage.body(data)
        let id = data.id
        let timestamp = Int64(clock().timeIntervalSince1970)
        let headers = [
            ("content-type", "application/json"), ("user-agent", "Storekeeper-Webhooks/1"), ("webhook-id", id),
            ("webhook-timestamp", "\(timestamp)"),
            ("webhook-signature", WebhookMessage.signature(id: id, timestamp: timestamp, body: body, keys: webhook.signingKeys)),
        ]
        try await post([delivery], url: webhook.url, headers: headers, body: body, app: app)
    }

    package func sendMessage(_ delivery: OutboxDelivery, integration: IntegrationConfiguration, app: AppRuntime) async throws {
        guard let url = integration.endpoint else { return }
        let data = try await data(delivery)
        let type = delivery.event.type.rawValue
        let body =
            integration.type == .slack
            ? IntegrationMessages.slack(data: data, type: type, templates: integration.templates)
            : IntegrationMessages.telegram(data: data, type: type, chatId: integration.chatId ?? "", templates: integration.templates)
        if integration.type == .slack { await pacing.wait(for: "\(app.id)/\(integration.id)", interval: .seconds(1)) }
        try await post([delivery], url: url, headers: [("content-type", "application/json")], body: body, app: app)
    }

    /// A RevenueCat-format webhook (``RevenueCatWebhook``), with the configured `Authorization`
    /// header as it is. The event's transaction is read from the chain's ledger (when it was
    /// bought, family sharing, the offer, whether a trial came before) and the customer's
    /// attributes from the store, at the time of sending.
    package func sendRevenueCat(_ delivery: OutboxDelivery, integration: IntegrationConfiguration, app: AppRuntime) async throws {
        guard let url = integration.endpoint else { return }
        let started = ContinuousClock.now
        let data = try await data(delivery)
        var purchase: RevenueCatWebhook.Purchase?
        if let transactionId = data.transactionId, let chain = data.originalTransactionId {
            purchase = RevenueCatWebhook.Purchase(
                transactionId: transactionId, ledger: try await store.ledger(appId: app.id, originalTransactionId: chain))
        }
        let attributes = try await data.customerId.asyncMap { try await store.customerAttributes(appId: app.id, customerId: $0) } ?? []
        let settings = RevenueCatWebhook.Settings(
            appId: app.configuration.revenueCat?.revenueCatAppId ?? app.id, analytics: app.configuration.analytics, attributes: attributes)
        guard let body = RevenueCatWebhook.body(data: data, purchase: purchase, settings: settings) else {
            try await finish(
                delivery, at: clock(), started: started, status: nil, error: "\(data.type) has no RevenueCat counterpart", outcome: .dead)
            return
        }
        var headers = [("content-type", "application/json"), ("user-agent", "Storekeeper-Webhooks/1")]
        if let authorization = integration.authorization { headers.append(("authorization", authorization)) }
        try await post([delivery], url: url, headers: headers, body: body, app: app)
    }

    /// Amplitude and Mixpanel take batches: at most 2,000 events and 1 MB (Amplitude) or 2 MB
    /// (Mixpanel) a request.
    package func sendBatches(_ deliveries: [OutboxDelivery], integration: IntegrationConfiguration, app: AppRuntime) async throws {
        guard let url = integration.endpoint else { return }
        let limit = integration.type == .amplitude ? 1_000_000 : 2_000_000
        var events: [(OutboxDelivery, [String: Any], Int)] = []
        for delivery in deliveries {
            let data = try await data(delivery)
            let event =
                integration.type == .amplitude
                ? IntegrationMessages.amplitudeEvent(data: data, type: delivery.event.type.rawValue, time: delivery.event.occurredAt)
                : IntegrationMessages.mixpanelEvent(data: data, type: delivery.event.type.rawValue, time: delivery.event.occurredAt)
            events.append((delivery, event, IntegrationMessages.json(event).count + 1))
        }
        var start = 0
        while start < events.count {
            var end = start
            var size = 64
            while end < events.count, end - start < 2_000, size + events[end].2 <= limit || end == start {
                size += events[end].2
                end += 1
            }
            var chunk = Array(events[start..<end])
            start = end
            if integration.type == .amplitude {
                // Amplitude's 400 names the events it refuses and imports none: the rest go again.
                while !chunk.isEmpty {
                    let body = IntegrationMessages.json([
                        "api_key": integration.apiKey ?? "", "events": chunk.map(\.1),
                        // Amplitude refuses ids shorter than 5 characters unless told otherwise.
                        "options": ["min_id_length": 1],
                    ])
                    let ids = chunk.map(\.0.id)
                    let again = try await post(
                        chunk.map(\.0), url: url, headers: [("content-type", "application/json")], body: body, app: app,
                        refusals: { answer in
                            guard answer.status == 400 else { return nil }
                            return Self.named(IntegrationMessages.amplitudeRefusals(answer.body), ids: ids, vendor: "Amplitude")
                        }, unnamed: .notImported)
                    chunk = chunk.filter { event in again.contains { $0.id == event.0.id } }
                }
            } else {
                let credentials = Data("\(integration.serviceAccountUsername ?? ""):\(integration.serviceAccountSecret ?? "")".utf8)
                    .base64EncodedString()
                let body = IntegrationMessages.json(chunk.map(\.1))
                let ids = chunk.map(\.0.id)
                try await post(
                    chunk.map(\.0), url: url, headers: [("content-type", "application/json"), ("authorization", "Basic \(credentials)")], body: body,
                    app: app,
                    refusals: { answer in
                        // Strict mode: a 400 names the records it refused; the rest were imported.
                        guard answer.status == 400,
                            let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any],
                            let failed = object["failed_records"] as? [[String: Any]]
                        else { return nil }
                        var refused: [Int: String] = [:]
                        for record in failed {
                            guard let index = record["index"] as? Int else { continue }
                            refused[index] = "\(record["field"] as? String ?? "") \(record["message"] as? String ?? "")"
                        }
                        return Self.named(refused, ids: ids, vendor: "Mixpanel")
                    })
            }
        }
    }

    /// A vendor's refusals by index in the batch, as refusals by delivery id (`nil` when none
    /// names a record of the batch).
    package static func named(_ refused: [Int: String], ids: [Int64], vendor: String) -> [Int64: String]? {
        var result: [Int64: String] = [:]
        for (index, why) in refused where ids.indices.contains(index) { result[ids[index]] = "refused by \(vendor): \(why)" }
        return result.isEmpty ? nil : result
    }

}
