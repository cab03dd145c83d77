import Crypto
import Foundation

/// Signs compact JWS with ES256 under Apple's header `{"alg":"ES256","kid":…,"typ":"JWT"}`.
///
/// Kept in this target (rather than reusing the test-signing target's signer) so the production
/// client carries no test code.
struct CompactJWSSigner: Sendable {
    let key: InAppPurchaseKey

    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String
        var typ = "JWT"
    }

    /// Encodes `claims` as JSON and signs them.
    func sign(_ claims: some Encodable) throws(AppStoreServerAPIError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let header = try encoder.encode(Header(kid: key.keyId))
            let payload = try encoder.encode(claims)
            let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
            let signature = try key.privateKey.signature(for: Data(signingInput.utf8))
            return signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        } catch {
            throw AppStoreServerAPIError(.signing, "cannot sign the token: \(error)")
        }
    }
}
