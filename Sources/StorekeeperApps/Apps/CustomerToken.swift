import AppStoreJOSE
import Crypto
import Foundation

/// A credential for the app on one customer's device: the operator's backend mints it with
/// its app key (`POST …/customers/{customerId}/tokens`) and hands it to the app, which can then
/// read that customer's state and events, post that customer's purchases and ask for that
/// customer's offer signatures — nothing else, and only until it expires.
///
/// The text is `skc1.<base64url(claims)>.<base64url(HMAC-SHA256)>`, claims
/// `{"app", "sub" (the customer id), "exp" (Unix seconds)}`, the MAC keyed per app (see
/// ``CustomerTokenKey``) and checked in constant time. Nothing is stored: every replica
/// holding the same configuration accepts it.
package struct CustomerToken: Sendable, Hashable {
    package var appId: String
    package var customerId: String
    package var expiresAt: Date

    package init(appId: String, customerId: String, expiresAt: Date) {
        self.appId = appId
        self.customerId = customerId
        self.expiresAt = expiresAt
    }

    package static let prefix = "skc1."

    private struct Claims: Codable {
        package var app: String
        package var sub: String
        package var exp: Int64
    }

    /// Whether `text` has the shape of a customer token (so it is never compared with API keys).
    package static func looksLikeToken(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// The token's text, signed with `key`.
    package func text(key: SymmetricKey) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let claims = (try? encoder.encode(Claims(app: appId, sub: customerId, exp: Int64(expiresAt.timeIntervalSince1970)))) ?? Data()
        let body = Self.prefix + Base64URL.encode(claims)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: key)
        return body + "." + Base64URL.encode(Data(mac))
    }

    /// The token `text` stands for when its MAC verifies with `key` and it has not expired at
    /// `now`; `nil` otherwise.
    package static func verified(_ text: String, key: SymmetricKey, now: Date) -> CustomerToken? {
        guard looksLikeToken(text), text.utf8.count <= 2048, let dot = text.lastIndex(of: ".") else { return nil }
        let body = text[..<dot]
        guard let mac = Base64URL.decode(text[text.index(after: dot)...]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(body.utf8), using: key),
            let claimsBytes = Base64URL.decode(body.dropFirst(prefix.count)),
            let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimsBytes))
        else { return nil }
        let expiry = Date(timeIntervalSince1970: TimeInterval(claims.exp))
        guard expiry > now else { return nil }
        return CustomerToken(appId: claims.app, customerId: claims.sub, expiresAt: expiry)
    }
}

/// The per-app key customer tokens are signed with: derived from the app's
/// `customerTokenSecret` when configured, else from the app's API keys (so rotating the keys
/// also revokes every token), and bound to the app id.
package enum CustomerTokenKey {
    package static func of(_ app: AppConfiguration) -> SymmetricKey? {
        let material: String
        if let secret = app.customerTokenSecret, !secret.isEmpty {
            material = "secret\n" + secret
        } else if !app.apiKeys.isEmpty {
            material = "keys\n" + app.apiKeys.map(\.key).sorted().joined(separator: "\n")
        } else {
            return nil
        }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(material.utf8)), salt: Data("storekeeper customer tokens v1".utf8),
            info: Data(app.id.utf8), outputByteCount: 32)
    }
}
