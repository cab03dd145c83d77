import AppStoreJOSE
import AppStoreModels
import AppStoreVerification
import Foundation
import StorekeeperApps
import StorekeeperStore

/// Decides, before anything is stored, whether a body posted to an app's notification URL
/// could be genuine. The URL needs no key, so this is all that stands between the internet
/// and the database:
///
/// 1. A V2 body must be `{"signedPayload": JWS}` whose JWS verifies with the app's signed
///    environments (Sandbox, Production): Apple's x5c chain to a trusted root, the app's bundle
///    id, app id and environment. Unsigned Xcode or LocalTesting data is never accepted here.
/// 2. A V1 body must carry the app's shared secret as `password` (compared in constant time)
///    and a signed `unified_receipt.latest_receipt` that verifies for the app; no string in it
///    may hold U+0000.
///
/// What is admitted is stored in a canonical form: a V2 body is rebuilt from its verified JWS
/// alone, and a V1 body loses its `password`, so the secret is never persisted and padding a
/// genuine body with junk cannot multiply rows. Every refusal looks the same to the sender
/// (see ``Refusal``); an unknown app id is refused like a known one with bad data.
package struct NotificationAdmission: Sendable {
    /// What the inbox stores for an admitted body.
    package struct Admitted: Sendable {
        package var version: NotificationVersion
        /// The verified `notificationUUID` (V2).
        package var notificationUUID: String?
        /// The canonical body.
        package var body: Data
        /// A V2 body's JWS and the notification its verification decoded.
        package var verified: (signedPayload: String, notification: ResponseBodyV2DecodedPayload)?
        /// The chain the notification's transaction (or renewal info) names, read without
        /// verifying that nested JWS (processing does): it only keeps one chain's notifications
        /// in order between workers (``NotificationInbox/claimPending(limit:owner:now:leaseUntil:)``).
        package var chain: String?
        /// What the inbox row lists it by, as processing will record it (``NotificationMetadata/of(_:chain:)``).
        package var metadata: NotificationMetadata?
    }

    /// Why a body was turned away: a short code for metrics and logs (never sent back).
    package struct Refusal: Error, Sendable, Hashable {
        package var code: Reason
        package var detail: String

        /// Why, as the `reason` label of `storekeeper_notifications_refused_total`.
        package enum Reason: String, Sendable, Hashable, CaseIterable {
            /// Not a notification of either version, or not re-encodable.
            case malformed
            /// No such app (answered exactly as any other refusal).
            case unknownApp = "unknown_app"
            /// A V2 signed payload that does not verify for the app.
            case unverified
            /// A V1 body whose password does not match the shared secret.
            case password
            /// A string holds U+0000.
            case nul
            /// A V1 body whose `latest_receipt` does not verify for the app.
            case receipt
        }
    }

    package enum Verdict: Sendable {
        case admitted(Admitted)
        case refused(Refusal)
        /// The body could not be checked now (a revocation check could not reach Apple):
        /// the sender should try again.
        case retryLater(String)
    }

    /// Judges `body` for `app` (`nil` when the path names no configured app).
    package static func evaluate(body: Data, app: AppRuntime?, now: Date) async -> Verdict {
        // Apple's V2 body, read without a JSON parser; any other shape takes the general path.
        if let app, let signedPayload = SignedPayloadBody.jws(in: body) {
            // Without whitespace (as Apple sends it) the body is already its canonical form.
            let canonical = body.count == signedPayload.utf8.count + SignedPayloadBody.framing ? body : nil
            return await evaluateV2(signedPayload: signedPayload, canonical: canonical, app: app, now: now)
        }
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return .refused(Refusal(code: .malformed, detail: "the body is not a JSON object"))
        }
        guard let app else { return .refused(Refusal(code: .unknownApp, detail: "no such app")) }
        if let signedPayload = object["signedPayload"] as? String {
            return await evaluateV2(signedPayload: signedPayload, app: app, now: now)
        }
        if object["notification_type"] is String {
            return evaluateV1(object: object, body: body, app: app, now: now)
        }
        return .refused(Refusal(code: .malformed, detail: "neither a V2 (signedPayload) nor a V1 (notification_type) body"))
    }

    /// `canonical`: the body, when it is already the canonical form of `signedPayload`.
    private static func evaluateV2(signedPayload: String, canonical body: Data? = nil, app: AppRuntime, now: Date) async -> Verdict {
        switch await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotification(signedPayload, now: now) }) {
        case .invalid(let failure):
            if failure.reason == .retryableVerificationFailure { return .retryLater(failure.message) }
            return .refused(Refusal(code: .unverified, detail: "\(failure.reason.rawValue): \(failure.message)"))
        case .valid(let notification):
            guard let canonical = body ?? SignedPayloadBody.canonical(signedPayload) else {
                return .refused(Refusal(code: .malformed, detail: "the body cannot be re-encoded"))
            }
            let uuid = InboxText.field(notification.notificationUUID).flatMap { $0.isEmpty ? nil : $0 }
            return .admitted(
                Admitted(
                    version: .v2, notificationUUID: uuid, body: canonical, verified: (signedPayload, notification),
                    chain: chain(named: notification), metadata: .of(notification, chain: chain(named: notification))))
        }
    }

    /// The `originalTransactionId` of the notification's signed transaction, else of its
    /// signed renewal info, from the JWS payloads as they stand (not verified here).
    package static func chain(named notification: ResponseBodyV2DecodedPayload) -> String? {
        struct Chain: Decodable {
            var originalTransactionId: String?
        }
        for var signed in [notification.data?.signedTransactionInfo, notification.data?.signedRenewalInfo].compactMap({ $0 }) {
            let payload = signed.withUTF8 { bytes -> [UInt8]? in
                guard let segments = JWSSegments(bytes) else { return nil }
                return Base64URL.decode(segment: UnsafeBufferPointer(rebasing: bytes[segments.payload]))
            }
            guard let payload, let chain = try? JSONDecoder().decode(Chain.self, from: Data(payload)) else { continue }
            if let id = InboxText.field(chain.originalTransactionId), !id.isEmpty { return id }
        }
        return nil
    }

    private static func evaluateV1(object: [String: Any], body: Data, app: AppRuntime, now: Date) -> Verdict {
        guard let secret = app.configuration.sharedSecret, let password = object["password"] as? String,
            ConstantTime.equals(password, secret)
        else {
            return .refused(Refusal(code: .password, detail: "the V1 password does not match the app's shared secret"))
        }
        guard !containsNUL(object) else {
            return .refused(Refusal(code: .nul, detail: "a string of the body holds U+0000"))
        }
        guard let notification = try? JSONDecoder().decode(NotificationV1.self, from: body) else {
            return .refused(Refusal(code: .malformed, detail: "the body is not a V1 notification"))
        }
        if case .failure(let refusal) = NotificationDecider.verifyLatestReceipt(of: notification, app: app, now: now) {
            return .refused(Refusal(code: .receipt, detail: refusal.description))
        }
        var stripped = object
        stripped.removeValue(forKey: "password")
        guard let canonical = try? JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return .refused(Refusal(code: .malformed, detail: "the body cannot be re-encoded"))
        }
        return .admitted(Admitted(version: .v1, notificationUUID: nil, body: canonical, metadata: .of(notification)))
    }

    /// Whether any key or string inside a decoded JSON value holds U+0000.
    package static func containsNUL(_ value: Any) -> Bool {
        switch value {
        case let text as String: return InboxText.containsNUL(text)
        case let array as [Any]: return array.contains(where: containsNUL)
        case let object as [String: Any]:
            return object.contains { InboxText.containsNUL($0.key) || containsNUL($0.value) }
        default: return false
        }
    }
}
