import Foundation
import Hummingbird
import SubscriptionEngine

extension StorekeeperAPI {
    /// What the server signs about a customer: the entitlements at the signing instant, for the
    /// SDK's offline cache. Dates are milliseconds since 1970 (as Apple's signed data).
    package struct SignedCustomerState: Codable, Sendable {
        package var iss = "storekeeper"
        package var appId: String
        package var customerId: String
        /// The server's clock when it signed: the SDK's offline window starts here.
        package var signedDate: Int64
        /// The end of the offline window (``signedDate`` plus the configured
        /// `offlineWindowSeconds`): the SDK serves this state no later, whatever its files say.
        package var offlineUntil: Int64
        package var entitlements: [SignedEntitlement]
    }

    package struct SignedEntitlement: Codable, Sendable {
        package var identifier: String
        package var productId: String
        package var productType: String
        package var originalTransactionId: String
        package var expiresDate: Int64?
        /// Whether the subscription granting it renews (`nil` for other products).
        package var willRenew: Bool?
        package var basis: String
        package var ownership: String
    }

    package struct SignedStateResponse: ResponseEncodable {
        package var signedState: String
        package var keyId: String
    }

    package struct SigningKeyResponse: ResponseEncodable {
        package var keyId: String
        package var algorithm = "ES256"
        /// The public key, PEM (`BEGIN PUBLIC KEY`).
        package var publicKey: String
    }

    /// `GET /v1/apps/{appId}/customers/{customerId}/signed-state`: the customer's entitlements
    /// now, signed with the server's state key (an unknown customer gets a signed empty list).
    package func signedState(_ request: Request, _ context: APIRequestContext) async throws -> SignedStateResponse {
        let (app, id) = (try context.caller().app, try context.customerId())
        guard let key = stateSigningKey.value else { throw APIError.retryLater("the state signing key is not loaded yet") }
        let now = clock()
        let entries = try await store.ledger(appId: app.id, customerId: id)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: now)
        let shared = try await sharedEntitlements(app: app, customerId: id, now: now).map(\.entitlement)
        let renewal = Dictionary(state.subscriptions.map { ($0.originalTransactionId, $0.willAutoRenew) }, uniquingKeysWith: { first, _ in first })
        let claims = SignedCustomerState(
            appId: app.id, customerId: id, signedDate: Self.milliseconds(now),
            offlineUntil: Self.milliseconds(now.addingTimeInterval(offlineWindow)),
            entitlements: (state.entitlements + shared).map { entitlement in
                SignedEntitlement(
                    identifier: entitlement.identifier, productId: entitlement.productId, productType: entitlement.productType.rawValue,
                    originalTransactionId: entitlement.originalTransactionId, expiresDate: entitlement.expiresDate.map(Self.milliseconds),
                    willRenew: entitlement.productType == .autoRenewable ? renewal[entitlement.originalTransactionId] ?? nil : nil,
                    basis: entitlement.basis.rawValue, ownership: entitlement.ownership.rawValue)
            })
        return SignedStateResponse(signedState: try key.sign(claims), keyId: key.keyId)
    }

    /// `GET /v1/apps/{appId}/state-signing-key` (a key or any customer token of the app): the
    /// public key customer states are signed with.
    package func stateSigningPublicKey(_ request: Request, _ context: APIRequestContext) async throws -> SigningKeyResponse {
        _ = try context.caller()
        guard let key = stateSigningKey.value else { throw APIError.retryLater("the state signing key is not loaded yet") }
        return SigningKeyResponse(keyId: key.keyId, publicKey: key.publicKeyPEM)
    }

    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}
