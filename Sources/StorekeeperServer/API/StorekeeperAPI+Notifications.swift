import Foundation
import Hummingbird
import StorekeeperStore

extension StorekeeperAPI {
    /// `POST /v1/apps/{appId}/notifications`: stores the raw body in the inbox, durably, and
    /// only then answers 200; processing happens from the inbox.
    func receiveNotification(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let appId = try context.parameters.require("appId")
        guard apps.apps[appId] != nil else { throw APIError.notFound }
        let buffer = try await body(request)
        let data = Data(buffer: buffer)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw APIError.badRequest("the body must be a JSON object: a V2 {\"signedPayload\"} or a V1 notification")
        }
        let version: Int
        var uuid: String?
        if let signed = object["signedPayload"] as? String {
            version = 2
            uuid = Self.unverifiedNotificationUUID(signed)
        } else if object["notification_type"] is String {
            version = 1
        } else {
            throw APIError.badRequest("the body is neither a V2 notification (signedPayload) nor a V1 notification (notification_type)")
        }
        var headers: [String: String] = [:]
        for field in request.headers where [.contentType, .userAgent].contains(field.name) {
            headers[field.name.canonicalName] = String(field.value.prefix(256))
        }
        let row = InboxNotification(
            appId: appId, idempotencyKey: InboxNotification.idempotencyKey(version: version, notificationUUID: uuid, body: data),
            version: version, body: String(decoding: data, as: UTF8.self), headers: headers, receivedAt: clock())
        let insertion = try await store.receive(row)
        metrics.notificationReceived(version: version)
        await signal.notify()
        let duplicate: Bool
        if case .duplicate = insertion { duplicate = true } else { duplicate = false }
        return JSONBody.response(value: NotificationReceipt(id: insertion.id, duplicate: duplicate))
    }

    struct NotificationReceipt: Encodable {
        var received = true
        var id: Int64
        var duplicate: Bool
    }

    /// The `notificationUUID` a JWS claims, read without verification: only to recognize exact
    /// repeats in the inbox (the verified value is what processing trusts).
    static func unverifiedNotificationUUID(_ jws: String) -> String? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count < 1 << 20 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let payload = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any],
            let uuid = object["notificationUUID"] as? String, uuid.utf8.count <= 64
        else { return nil }
        return uuid
    }
}
