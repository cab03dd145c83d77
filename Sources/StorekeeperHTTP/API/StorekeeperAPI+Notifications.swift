import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import Tracing

extension StorekeeperAPI {
    /// The one answer to every body the notification route turns away, whatever the reason and
    /// whether or not the app exists: the sender learns nothing it could use.
    package static let notificationRefused = APIError(
        .badRequest, code: .notificationRefused,
        message: "the body is not a notification this server accepts at this address")

    /// `POST /v1/apps/{appId}/notifications` (no key: Apple calls it). Admits only what could be
    /// genuine (``NotificationAdmission``), stores it in the inbox durably, and only then
    /// answers 200; processing happens from the inbox.
    ///
    /// With tracing on, the POST is the root span of the notification's trace (its parts: the
    /// admission's verdict, the inbox write), and the row keeps its context for processing.
    package func receiveNotification(_ request: Request, _ context: APIRequestContext) async throws -> NotificationReceipt {
        try await withSpan("POST /v1/apps/{appId}/notifications", context: .topLevel, ofKind: .server) { span in
            span.attributes["http.request.method"] = "POST"
            span.attributes["http.route"] = "/v1/apps/{appId}/notifications"
            do {
                let receipt = try await admitNotification(request, context, span: span)
                span.attributes["http.response.status_code"] = 200
                return receipt
            } catch {
                NotificationTracing.fail(span, error)
                throw error
            }
        }
    }

    private func admitNotification(_ request: Request, _ context: APIRequestContext, span: any Span) async throws -> NotificationReceipt {
        guard let appId = try? context.pathParameter("appId") else { throw Self.notificationRefused }
        if apps.apps[appId] != nil { span.attributes["storekeeper.app"] = appId }
        let buffer = try await collectBody(request, upTo: maximumNotificationBodySize)
        let now = clock()
        let admitted: NotificationAdmission.Admitted
        switch await NotificationAdmission.evaluate(body: Data(buffer: buffer), app: apps.apps[appId], now: now) {
        case .refused(let refusal):
            span.attributes["storekeeper.outcome"] = "refused"
            span.attributes["storekeeper.refusal"] = refusal.code.rawValue
            metrics.notificationRefused(reason: refusal.code.rawValue)
            if apps.apps[appId] != nil { door.counters.record(appId: appId, refused: true, at: now) }
            throw Self.notificationRefused
        case .retryLater:
            span.attributes["storekeeper.outcome"] = "retry_later"
            throw APIError.retryLater("the notification cannot be verified right now")
        case .admitted(let value):
            admitted = value
            door.counters.record(appId: appId, refused: false, at: now)
        }
        var headers: [String: String] = [:]
        for field in request.headers where [.contentType, .userAgent].contains(field.name) {
            headers[field.name.canonicalName] = InboxText.clean(field.value, limit: 256)
        }
        NotificationTracing.describe(span, appId: appId, metadata: admitted.metadata)
        var row = InboxNotification(
            appId: appId,
            idempotencyKey: InboxNotification.idempotencyKey(
                version: admitted.version, notificationUUID: admitted.notificationUUID, body: admitted.body),
            version: admitted.version, body: String(decoding: admitted.body, as: UTF8.self), headers: headers, receivedAt: now,
            metadata: admitted.metadata ?? admitted.chain.map { NotificationMetadata(originalTransactionId: $0) })
        row.traceContext = NotificationTracing.traceparent()
        let insertion = try await withSpan("storekeeper.inbox.store") { storing in
            NotificationTracing.describe(storing, appId: appId, metadata: admitted.metadata)
            do {
                return try await store.receive(row)
            } catch {
                NotificationTracing.fail(storing, error)
                throw error
            }
        }
        if case .inserted(let id) = insertion, let verified = admitted.verified {
            door.verified.keep(id: id, appId: appId, signedPayload: verified.signedPayload, notification: verified.notification)
        }
        metrics.notificationReceived(version: admitted.version)
        let duplicate: Bool
        if case .duplicate = insertion { duplicate = true } else { duplicate = false }
        span.attributes["storekeeper.outcome"] = duplicate ? "duplicate" : "stored"
        // A repeat of a stored row is neither work nor an arrival: replaying a genuine
        // notification cannot hold processing back as a burst would.
        if !duplicate { await signal.notify() }
        return NotificationReceipt(id: insertion.id, duplicate: duplicate)
    }

    /// `{"duplicate": …, "id": …, "received": true}`, written directly (what the API's encoder
    /// would give): Apple's every POST is answered with it, and an encoder would cost more than
    /// the rest of the answer.
    package struct NotificationReceipt: ResponseGenerator {
        package var id: Int64
        package var duplicate: Bool

        package func response(from request: Request, context: some RequestContext) throws -> Response {
            JSONBody.response(json: ByteBuffer(string: "{\"duplicate\":\(duplicate),\"id\":\(id),\"received\":true}"))
        }
    }

    /// `GET /v1/apps/{appId}/notifications` (app key): the inbox's rows, newest first, as
    /// metadata only; a body is an admin read of one row.
    package func listNotifications(_ request: Request, _ context: APIRequestContext) async throws -> [String: [NotificationResponse]] {
        let app = try context.caller().app
        let query = request.uri.queryParameters
        var filter = NotificationFilter(limit: try Self.limit(request))
        filter.originalTransactionId = try Self.queryText(query.get("originalTransactionId"), name: "originalTransactionId")
        filter.notificationType = try Self.queryText(query.get("type"), name: "type")
        if let state = query.get("state") {
            guard let value = InboxState(rawValue: state) else {
                throw APIError.badRequest("state must be one of \(InboxState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            filter.state = value
        }
        let rows = try await reads.notifications(appId: app.id, filter: filter)
        return ["notifications": rows.map(NotificationResponse.init)]
    }

    /// `GET /v1/apps/{appId}/notifications/{id}` (admin key): one row with its stored body.
    package func notificationBody(_ request: Request, _ context: APIRequestContext) async throws -> NotificationResponse {
        let app = try context.caller().app
        let row = try await inboxRow(app: app, context: context)
        var response = NotificationResponse(row)
        // An empty body is one retention removed: absent, not an empty string.
        response.body = row.body.isEmpty ? nil : NotificationResponse.redactingPassword(row.body)
        return response
    }

    /// `POST /v1/apps/{appId}/notifications/{id}/retry` (admin key): puts a failed row back in
    /// the queue with its attempts reset (after the cause was fixed).
    package func retryNotification(_ request: Request, _ context: APIRequestContext) async throws -> EditedResponse<[String: String]> {
        let app = try context.caller().app
        let row = try await inboxRow(app: app, context: context)
        guard row.state == .failed, let id = row.id else {
            throw APIError(.conflict, code: .notFailed, message: "only a failed notification can be retried")
        }
        try await store.requeueFailedNotification(appId: app.id, id: id)
        await signal.notify()
        return EditedResponse(status: .accepted, response: ["id": "\(id)", "state": InboxState.pending.rawValue])
    }

    private func inboxRow(app: AppRuntime, context: APIRequestContext) async throws -> InboxNotification {
        let text = try context.parameters.require("notificationId")
        guard let id = Int64(text), id > 0 else { throw APIError.badRequest("the notification id must be a positive integer") }
        guard let row = try await store.notification(id: id), row.appId == app.id else { throw APIError.notFound }
        return row
    }

    /// A query parameter bound to SQL: at most 256 characters, no control characters.
    package static func queryText(_ value: String?, name: String) throws -> String? {
        guard let value else { return nil }
        guard (1...256).contains(value.utf8.count), !value.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw APIError.badRequest("\(name) must be 1 to 256 characters without control characters")
        }
        return value
    }
}
