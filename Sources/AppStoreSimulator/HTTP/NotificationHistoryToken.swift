import AppStoreJOSE
import AppStoreModels
import Foundation

/// The `paginationToken` of Get Notification History: where the next page starts in the
/// store's notification history, bound to the request it continues (Apple refuses a token
/// sent with a different request, 4000014).
struct NotificationHistoryToken: Hashable, Sendable {
    /// The history index the next page starts at.
    var nextIndex: Int
    /// A digest of the request's filters.
    var fingerprint: UInt64

    init(nextIndex: Int, request: NotificationHistoryRequest) {
        self.nextIndex = nextIndex
        self.fingerprint = Self.fingerprint(request)
    }

    /// Reads a token issued for `request`; `nil` when it is not one, or was issued for another
    /// request.
    init?(token: String, request: NotificationHistoryRequest) {
        guard token.count < 200, let bytes = Base64URL.decode(token) else { return nil }
        let data = Data(bytes)
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":")
        guard parts.count == 3, parts[0] == "nh1", let index = Int(parts[1]), index >= 0,
            let fingerprint = UInt64(parts[2], radix: 16), fingerprint == Self.fingerprint(request)
        else { return nil }
        self.nextIndex = index
        self.fingerprint = fingerprint
    }

    /// The token's text (base64url, opaque to clients).
    var token: String {
        Base64URL.encode(Data("nh1:\(nextIndex):\(String(fingerprint, radix: 16))".utf8))
    }

    /// FNV-1a over the request's fields, stable across processes.
    private static func fingerprint(_ request: NotificationHistoryRequest) -> UInt64 {
        let text = [
            request.startDate.map { String($0.timeIntervalSince1970) } ?? "",
            request.endDate.map { String($0.timeIntervalSince1970) } ?? "",
            request.notificationType?.rawValue ?? "", request.notificationSubtype?.rawValue ?? "",
            request.transactionId ?? "", request.onlyFailures.map(String.init) ?? "",
        ].joined(separator: "|")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
