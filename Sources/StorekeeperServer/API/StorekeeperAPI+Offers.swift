import AppStoreServerAPI
import Foundation
import Hummingbird
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    struct OfferSignRequest: Decodable {
        var customerId: String
        var productId: String
        var offerId: String
        /// The customer's app account token (a UUID the app passes to StoreKit): required, so a
        /// signature is never redeemable by just anyone. Bound to the customer on first use.
        var appAccountToken: String?
        /// The nonce; generated when absent.
        var nonce: String?
        /// `legacy` (default: the ECDSA signature of StoreKit 1 and `Product.PurchaseOption
        /// .promotionalOffer(offerID:keyID:nonce:signature:timestamp:)`) or `jws` (the signed
        /// promotional offer of iOS 18.2+).
        var format: String?
        /// For `jws`: any transaction id of the customer (recommended by Apple).
        var transactionId: String?
    }

    struct OfferSignResponse: ResponseEncodable {
        var format: String
        var productId: String
        var offerId: String
        var keyId: String
        var nonce: String
        var timestamp: Int64
        var appAccountToken: String?
        var signature: String?
        var signedOffer: String?
    }

    /// Checks with the engine that the customer may redeem a promotional offer of the product's
    /// subscription group, then signs the offer with the app's In-App Purchase key. The request
    /// must carry the customer's app account token: one bound to another customer is a 409, an
    /// unbound one is bound to this customer. A customer token may ask only for its customer.
    ///
    /// `POST /v1/apps/{appId}/offers/sign` (app key or the customer's token).
    func signOffer(_ request: Request, _ context: APIRequestContext) async throws -> OfferSignResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let input = try JSONBody.decode(OfferSignRequest.self, from: try await body(request))
        guard (1...256).contains(input.customerId.utf8.count) else { throw APIError.badRequest("customerId must be 1 to 256 characters") }
        if let tokenCustomer = principal.customerId, !CustomerId.same(tokenCustomer, input.customerId) { throw APIAuthenticator.customerTokenRefused }
        guard (1...256).contains(input.productId.utf8.count), (1...256).contains(input.offerId.utf8.count) else {
            throw APIError.badRequest("productId and offerId must be 1 to 256 characters")
        }
        let format = input.format ?? "legacy"
        guard ["legacy", "jws"].contains(format) else { throw APIError.badRequest("format must be legacy or jws") }
        guard let tokenText = input.appAccountToken else {
            throw APIError.badRequest("appAccountToken is required: the customer's app account token, bound to the signature")
        }
        guard let uuid = UUID(uuidString: tokenText) else { throw APIError.badRequest("appAccountToken must be a UUID") }
        let token = uuid.uuidString.lowercased()
        if let owner = try await store.customer(appId: app.id, alias: .appAccountToken(token)), !CustomerId.same(owner, input.customerId) {
            throw Self.replayed(.appAccountToken(token))
        }
        let nonce: UUID
        if let text = input.nonce {
            guard let parsed = UUID(uuidString: text) else { throw APIError.badRequest("nonce must be a UUID") }
            nonce = parsed
        } else {
            nonce = UUID()
        }
        guard let group = app.catalog.product(input.productId)?.subscriptionGroupIdentifier else {
            throw APIError(
                .unprocessableContent, code: .unknownProduct, message: "\(input.productId) is not an auto-renewable subscription of the catalog")
        }
        let now = clock()
        let entries = try await store.ledger(appId: app.id, customerId: input.customerId)
        let state = CustomerState(history: PurchaseHistory(ledger: entries), catalog: app.catalog, at: now)
        guard let eligibility = state.eligibility[group], eligibility.promotionalOffer else {
            let reason = state.eligibility[group].map { "\($0.promotionalOfferReason)" } ?? "never subscribed"
            throw APIError(.conflict, code: .notEligible, message: "the customer may not redeem a promotional offer in group \(group): \(reason)")
        }
        guard let settings = app.configuration.appStoreServerAPI, let key = app.signingKey else {
            throw APIError(.conflict, code: .noAppStoreCredentials, message: "the app has no appStoreServerAPI key to sign offers with")
        }
        try await bind(appAccountToken: token, to: input.customerId, app: app, now: now)
        let timestamp = now.millisecondsSince1970
        var response = OfferSignResponse(
            format: format, productId: input.productId, offerId: input.offerId, keyId: key.keyId,
            nonce: nonce.uuidString.lowercased(), timestamp: timestamp, appAccountToken: token)
        do {
            if format == "legacy" {
                let signature = try PromotionalOfferSignature(
                    fields: .init(
                        bundleId: app.configuration.bundleId, keyId: key.keyId, productId: input.productId, offerId: input.offerId,
                        appAccountToken: token, nonce: nonce, timestamp: timestamp), key: key)
                response.signature = signature.signature
            } else {
                let signer = StoreKitJWSSigner(key: key, issuerId: settings.issuerId, bundleId: app.configuration.bundleId)
                response.signedOffer = try signer.promotionalOffer(
                    productId: input.productId, offerIdentifier: input.offerId, transactionId: input.transactionId, nonce: nonce, issuedAt: now)
            }
        } catch {
            throw APIError(.internalServerError, code: .signingFailed, message: "the offer could not be signed")
        }
        return response
    }

    /// Binds the app account token to the customer, or answers 409 when it is another's.
    private func bind(appAccountToken token: String, to customer: String, app: AppRuntime, now: Date) async throws {
        let alias = CustomerAlias.appAccountToken(token)
        if let owner = try await store.customer(appId: app.id, alias: alias) {
            guard CustomerId.same(owner, customer) else { throw Self.replayed(alias) }
            return
        }
        do {
            try await store.apply(Changeset(appId: app.id, at: now, links: [CustomerLink(customerId: customer, aliases: [alias])]))
        } catch let error as StoreError where error.code == .aliasConflict {
            throw Self.replayed(alias)
        }
    }
}
