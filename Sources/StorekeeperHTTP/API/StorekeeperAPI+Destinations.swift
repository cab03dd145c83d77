import Crypto
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    /// Events out (admin key): the app's webhooks and integrations, their delivery logs, replay of
    /// dead letters, re-enabling after a 410, and a test event.
    package func addDestinationRoutes(to admin: RouterGroup<APIRequestContext>) {
        admin.get("destinations", use: listDestinations)
            .get("destinations/:destinationId/deliveries", use: listDeliveries)
            .post("destinations/:destinationId/replay", use: replayDeliveries)
            .post("destinations/:destinationId/enable", use: enableDestination)
            .post("destinations/:destinationId/test", use: sendTestEvent)
            .put("webhooks/:destinationId", use: putWebhook)
            .delete("webhooks/:destinationId", use: deleteWebhook)
    }

    package struct DestinationResponse: Encodable {
        package var id: String
        package var type: String
        /// `configuration` (change it in the file) or `api` (`PUT`/`DELETE …/webhooks/{id}`).
        package var managedBy: String
        /// The webhook's URL, or the integration's endpoint (with no credential in it).
        package var url: String?
        package var events: [String]
        package var environments: [String]?
        package var disabled: String?
        package var deliveries: [String: Int]
    }

    package struct DeliveryResponse: Encodable {
        package struct Attempt: Encodable {
            package var at: Date
            package var status: Int?
            package var error: String?
            package var durationMilliseconds: Int
        }
        package var id: Int64
        package var eventId: String
        package var type: String
        package var occurredAt: Date
        package var state: String
        package var attempts: Int
        package var nextAttemptAt: Date?
        package var lastStatus: Int?
        package var lastError: String?
        package var deliveredAt: Date?
        package var log: [Attempt]
    }

    /// The destination id in the path, when the app has it (404 otherwise).
    package func destination(_ context: APIRequestContext) throws -> (AppRuntime, String) {
        let app = try context.caller().app
        let id = try context.pathParameter("destinationId")
        let known = app.webhooks().map(\.id) + app.configuration.integrations.map(\.id)
        guard known.contains(id) else { throw APIError.notFound }
        return (app, id)
    }

    /// `GET /v1/apps/{appId}/destinations`
    package func listDestinations(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let counts = try await store.deliveryCounts(appId: app.id)
        let disabled = try await store.disabledDestinations(appId: app.id)
        func tally(_ id: String) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: DeliveryState.allCases.map { ($0.rawValue, counts[id]?[$0] ?? 0) })
        }
        let configured = Set(app.configuration.webhooks.map(\.id))
        let webhooks = app.webhooks().map {
            DestinationResponse(
                id: $0.id, type: "webhook", managedBy: configured.contains($0.id) ? "configuration" : "api", url: $0.url, events: $0.events ?? ["*"],
                environments: $0.environments, disabled: disabled[$0.id],
                deliveries: tally($0.id))
        }
        let integrations = app.configuration.integrations.map { integration in
            // A Telegram endpoint holds the bot token: only its host is shown.
            let url = integration.type == .telegram ? integration.endpoint.flatMap { URL(string: $0)?.host } : integration.endpoint
            return DestinationResponse(
                id: integration.id, type: integration.type.rawValue, managedBy: "configuration",
                url: integration.type == .slack ? url.map { _ in "(a Slack webhook)" } : url,
                events: integration.events ?? ["*"], environments: integration.environments, disabled: disabled[integration.id],
                deliveries: tally(integration.id))
        }
        return JSONBody.response(value: ["destinations": webhooks + integrations])
    }

    /// `GET /v1/apps/{appId}/destinations/{id}/deliveries?state=&limit=`: newest first, each
    /// with every attempt.
    package func listDeliveries(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, id) = try destination(context)
        var state: DeliveryState?
        if let text = request.uri.queryParameters.get("state") {
            guard let value = DeliveryState(rawValue: text) else { throw APIError.badRequest("state must be pending, delivered or dead") }
            state = value
        }
        let deliveries = try await reads.deliveries(appId: app.id, destination: id, state: state, limit: try Self.limit(request))
        var result: [DeliveryResponse] = []
        for delivery in deliveries {
            let log = try await store.attempts(deliveryId: delivery.id).map {
                DeliveryResponse.Attempt(at: $0.at, status: $0.status, error: $0.error, durationMilliseconds: $0.durationMilliseconds)
            }
            result.append(
                DeliveryResponse(
                    id: delivery.id, eventId: delivery.event.details.eventId ?? delivery.event.idempotencyKey, type: delivery.event.type.rawValue,
                    occurredAt: delivery.event.occurredAt, state: delivery.state.rawValue, attempts: log.count,
                    nextAttemptAt: delivery.state == .pending ? delivery.nextAttemptAt : nil, lastStatus: delivery.lastStatus,
                    lastError: delivery.lastError, deliveredAt: delivery.deliveredAt, log: log))
        }
        return JSONBody.response(value: ["deliveries": result])
    }

    package struct ReplayRequest: Decodable {
        package var deliveryId: Int64?
    }

    /// `POST /v1/apps/{appId}/destinations/{id}/replay` with `{"deliveryId"}` or `{}` for every
    /// dead letter: they are sent again now, audited.
    package func replayDeliveries(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, id) = try destination(context)
        let buffer = try await body(request)
        let input = buffer.readableBytes == 0 ? ReplayRequest() : try JSONBody.decode(ReplayRequest.self, from: buffer)
        let now = clock()
        let count = try await store.replayDeliveries(appId: app.id, destination: id, id: input.deliveryId, now: now)
        try await audit(
            .replayDeliveries, app: app, actor: try context.caller().principal.actor, details: ["destination": id, "replayed": "\(count)"], at: now)
        return JSONBody.response(status: .accepted, value: ["replayed": count])
    }

    /// `POST /v1/apps/{appId}/destinations/{id}/enable`: deliveries resume after a 410.
    package func enableDestination(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, id) = try destination(context)
        let now = clock()
        try await store.enableDestination(appId: app.id, destination: id)
        try await audit(.enableDestination, app: app, actor: try context.caller().principal.actor, details: ["destination": id], at: now)
        return JSONBody.response(value: ["id": id, "enabled": "true"])
    }

    /// `POST /v1/apps/{appId}/destinations/{id}/test`: a `test.event` to this destination only.
    package func sendTestEvent(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, id) = try destination(context)
        let now = clock()
        let eventId = "evt_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(23)
        var details = EventDetails()
        details.eventId = eventId
        details.source = "test"
        var event = EventRecord(appId: app.id, type: .testEvent, details: details, occurredAt: now, idempotencyKey: "event:" + eventId)
        event.destinations = [id]
        try await store.apply(Changeset(appId: app.id, at: now, events: [event]))
        return JSONBody.response(status: .accepted, value: ["eventId": eventId])
    }

    package struct WebhookRequest: Decodable {
        package var url: String
        /// Absent: a new secret is made and answered once (never again).
        package var secret: String?
        package var secrets: [String]?
        package var events: [String]?
        package var environments: [String]?
    }

    /// `PUT /v1/apps/{appId}/webhooks/{id}` (admin key): adds or replaces a webhook kept in the
    /// database, checked as the configuration's are (https, no private address unless the app
    /// allows it, a `whsec_` secret). Without a secret one is made and shown in this answer only.
    /// Audited; every replica uses it within seconds.
    package func putWebhook(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let id = try context.pathParameter("destinationId")
        if app.configuration.webhooks.contains(where: { $0.id == id }) || app.configuration.integrations.contains(where: { $0.id == id }) {
            throw APIError(.conflict, code: .definedInConfiguration, message: "\(id) is defined in the configuration; change it there")
        }
        let input = try JSONBody.decode(WebhookRequest.self, from: try await body(request))
        var made: String?
        var secrets = (input.secrets ?? []) + (input.secret.map { [$0] } ?? [])
        if secrets.isEmpty {
            let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            made = "whsec_" + key.base64EncodedString()
            secrets = [made!]
        }
        guard secrets.count <= 4, (input.events?.count ?? 0) <= 64, input.url.utf8.count <= 2048 else {
            throw APIError.badRequest("at most 4 secrets, 64 event types and a 2048-byte URL")
        }
        var webhook = WebhookConfiguration(id: id, url: input.url, secret: secrets.last!, events: input.events, environments: input.environments)
        webhook.secrets = secrets.count > 1 ? Array(secrets.dropLast()) : nil
        if let problem = webhook.problem(allowsPrivateNetworks: app.configuration.allowPrivateNetworks == true) {
            throw APIError.badRequest(problem)
        }
        let now = clock()
        let created = try await store.saveWebhook(
            StoredWebhook(
                appId: app.id, id: id, url: input.url, secrets: secrets, events: input.events, environments: input.environments, createdAt: now,
                updatedAt: now))
        try await apps.reloadWebhooks(store: store, now: now)
        try await audit(
            created ? .addWebhook : .changeWebhook, app: app, actor: try context.caller().principal.actor,
            details: ["webhook": id, "url": input.url],
            at: now)
        var answer: [String: String] = ["id": id, "url": input.url, "created": created ? "true" : "false"]
        answer["secret"] = made
        return JSONBody.response(status: created ? .created : .ok, value: answer)
    }

    /// `DELETE /v1/apps/{appId}/webhooks/{id}` (admin key): its pending deliveries end as dead
    /// letters. Audited.
    package func deleteWebhook(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let id = try context.pathParameter("destinationId")
        if app.configuration.webhooks.contains(where: { $0.id == id }) {
            throw APIError(.conflict, code: .definedInConfiguration, message: "\(id) is defined in the configuration; change it there")
        }
        let now = clock()
        guard try await store.deleteWebhook(appId: app.id, id: id) else { throw APIError.notFound }
        try await apps.reloadWebhooks(store: store, now: now)
        try await audit(.deleteWebhook, app: app, actor: try context.caller().principal.actor, details: ["webhook": id], at: now)
        return JSONBody.response(value: ["id": id, "deleted": "true"])
    }

}
