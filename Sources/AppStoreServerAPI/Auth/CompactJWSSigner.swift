import AppStoreJOSE
import Crypto
import Foundation

/// Signs compact JWS with ES256 under Apple's header `{"alg":"ES256","kid":…,"typ":"JWT"}`,
/// through the package's one ES256 signer (``AppStoreJOSE``; the production client carries no
/// test code).
struct CompactJWSSigner: Sendable {
    let key: InAppPurchaseKey

    /// Encodes `claims` as JSON and signs them.
    func sign(_ claims: some Encodable) throws(AppStoreServerAPIError) -> String {
        do {
            return try ES256Signer(privateKey: key.privateKey).sign(claims, header: JWSHeader(type: "JWT", keyId: key.keyId))
        } catch {
            throw AppStoreServerAPIError(.signing, "cannot sign the token: \(error)")
        }
    }
}
