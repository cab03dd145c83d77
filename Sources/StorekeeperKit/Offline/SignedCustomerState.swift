import AppStoreJOSE
import Crypto
import Foundation

/// The server's signed answer about a customer (`GET …/customers/{id}/signed-state`), checked
/// with the server's public key.
struct SignedCustomerState: Sendable, Hashable, Codable {
    struct Claims: Sendable, Hashable, Codable {
        var iss: String
        var appId: String
        var customerId: String
        /// Milliseconds since 1970 on the server's clock.
        var signedDate: Int64
        /// The end of the offline window the server allows (milliseconds since 1970); `nil` in
        /// states of servers before it was signed.
        var offlineUntil: Int64? = nil
        var entitlements: [Entitlement]
    }

    struct Entitlement: Sendable, Hashable, Codable {
        var identifier: String
        var productId: String
        var productType: String
        var originalTransactionId: String
        var expiresDate: Int64?
        var willRenew: Bool?
        var basis: String
        var ownership: String
    }

    /// The compact JWS as the server sent it.
    var jws: String
    var claims: Claims

    var signedDate: Date { Date(timeIntervalSince1970: TimeInterval(claims.signedDate) / 1000) }

    /// The end of offline use with the app's `window`: the signing instant plus the window, cut
    /// to the server's signed `offlineUntil`. A state without one (from an older server) is bound
    /// by its signed date plus the window alone.
    func offlineUntil(window: TimeInterval) -> Date {
        let configured = signedDate.addingTimeInterval(window)
        guard let signed = claims.offlineUntil else { return configured }
        return min(configured, Date(timeIntervalSince1970: TimeInterval(signed) / 1000))
    }

    /// Checks the signature with `key` and that it speaks of `appId` and `customerId`.
    static func verified(_ jws: String, key: P256.Signing.PublicKey, appId: String, customerId: String) throws -> SignedCustomerState {
        guard jws.utf8.count < 1 << 20, let parsed = CompactJWS(jws), parsed.decodedHeader?.algorithm == "ES256",
            parsed.isSignedES256(by: key)
        else {
            throw StorekeeperError(.invalidAnswer, "the customer state's signature does not verify with the server's key")
        }
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: Data(parsed.payload))
        } catch {
            throw StorekeeperError(.invalidAnswer, "the signed customer state is not readable: \(error)")
        }
        guard claims.iss == "storekeeper", claims.appId == appId, claims.customerId == customerId else {
            throw StorekeeperError(.invalidAnswer, "the signed customer state is about another app or customer")
        }
        return SignedCustomerState(jws: jws, claims: claims)
    }

    /// The customer's information from this answer at `now` (the server's time, or the trusted
    /// time offline): entitlements whose access has not ended, except that while offline a
    /// subscription that renews keeps its access until `offlineUntil` (the renewal is assumed).
    func customerInfo(source: CustomerInfo.Source, now: Date, offlineUntil: Date?) -> CustomerInfo {
        var entitlements: [String: EntitlementInfo] = [:]
        for entitlement in claims.entitlements {
            let expires = entitlement.expiresDate.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) }
            let renewsOffline = source == .cache && entitlement.willRenew == true
            if let expires, expires <= now, !renewsOffline { continue }
            entitlements[entitlement.identifier] = EntitlementInfo(
                identifier: entitlement.identifier, productId: entitlement.productId, productType: entitlement.productType,
                originalTransactionId: entitlement.originalTransactionId, expiresDate: expires, willRenew: entitlement.willRenew,
                basis: entitlement.basis)
        }
        return CustomerInfo(
            customerId: claims.customerId, entitlements: entitlements, source: source, serverDate: signedDate, offlineUntil: offlineUntil)
    }
}
