import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    package struct OfferSignRequest: Decodable {
        package var customerId: String
        package var productId: String
        package var offerId: String
        /// The app account token the server issued to the customer (a UUID the app passes to
        /// StoreKit), bound to the signature so it is never redeemable by just anyone; a token not
        /// issued to this customer is refused. When absent, the customer's current token (issued
        /// now if it has none) is signed and answered.
        package var appAccountToken: String?
        /// The nonce; generated when absent.
        package var nonce: String?
        /// `legacy` (default) or `jws` (``PromotionalOfferSigning/Format``).
        package var format: String?
        /// For `jws`: any transaction id of the customer (recommended by Apple).
        package var transactionId: String?
    }

    package struct OfferSignResponse: ResponseEncodable {
        package var format: String
        package var productId: String
        package var offerId: String
        package var keyId: String
        package var nonce: String
        package var timestamp: Int64
        package var appAccountToken: String?
        package var signature: String?
        package var signedOffer: String?
    }

    /// Signs a promotional offer for the customer (``PromotionalOfferSigning``: the engine's
    /// eligibility, then the app's In-App Purchase key), bound to an app account token the
    /// server issued to the customer: the one the request names (409
    /// `app_account_token_not_issued` when it is not the customer's), or its current one. The
    /// signature never binds a token to anyone. A customer token may ask only for its customer.
    ///
    /// `POST /v1/apps/{appId}/offers/sign` (app key or the customer's token).
    package func signOffer(_ request: Request, _ context: APIRequestContext) async throws -> OfferSignResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let input = try JSONBody.decode(OfferSignRequest.self, from: try await body(request))
        guard (1...256).contains(input.customerId.utf8.count) else { throw APIError.badRequest("customerId must be 1 to 256 characters") }
        if let tokenCustomer = principal.customerId, !CustomerId.same(tokenCustomer, input.customerId) { throw APIAuthenticator.customerTokenRefused }
        guard (1...256).contains(input.productId.utf8.count), (1...256).contains(input.offerId.utf8.count) else {
            throw APIError.badRequest("productId and offerId must be 1 to 256 characters")
        }
        guard let format = PromotionalOfferSigning.Format(rawValue: input.format ?? "legacy") else {
            throw APIError.badRequest("format must be legacy or jws")
        }
        let named = try await namedAppAccountToken(input.appAccountToken, customerId: input.customerId, app: app)
        let nonce: UUID
        if let text = input.nonce {
            guard let parsed = UUID(uuidString: text) else { throw APIError.badRequest("nonce must be a UUID") }
            nonce = parsed
        } else {
            nonce = UUID()
        }
        let offer = PromotionalOfferSigning.Offer(
            customerId: input.customerId, productId: input.productId, offerId: input.offerId, format: format, nonce: nonce,
            transactionId: input.transactionId)
        let now = clock()
        let signing = PromotionalOfferSigning(app: app, now: now)
        do {
            try signing.check(offer, ledger: try await store.ledger(appId: app.id, customerId: input.customerId))
            let token: String
            if let named { token = named } else { token = try await issuedAppAccountToken(customerId: input.customerId, app: app, now: now) }
            let signed = try signing.sign(offer, token: token)
            return OfferSignResponse(
                format: format.rawValue, productId: input.productId, offerId: input.offerId, keyId: signed.keyId,
                nonce: nonce.uuidString.lowercased(), timestamp: signed.timestamp, appAccountToken: token, signature: signed.signature,
                signedOffer: signed.signedOffer)
        } catch let refusal as PromotionalOfferSigning.Refusal {
            switch refusal {
            case .unknownProduct(let product):
                throw APIError(
                    .unprocessableContent, code: .unknownProduct, message: "\(product) is not an auto-renewable subscription of the catalog")
            case .notEligible(let group, let reason):
                throw APIError(.conflict, code: .notEligible, message: "the customer may not redeem a promotional offer in group \(group): \(reason)")
            case .noCredentials:
                throw APIError(.conflict, code: .noAppStoreCredentials, message: "the app has no appStoreServerAPI key to sign offers with")
            case .signingFailed:
                throw APIError(.internalServerError, code: .signingFailed, message: "the offer could not be signed")
            }
        }
    }

    /// The token an offer request names, checked to be one the server issued to the customer
    /// (409 otherwise); nil when it names none.
    private func namedAppAccountToken(_ text: String?, customerId: String, app: AppRuntime) async throws -> String? {
        guard let text else { return nil }
        guard let uuid = UUID(uuidString: text) else { throw APIError.badRequest("appAccountToken must be a UUID") }
        let token = uuid.uuidString.lowercased()
        try await checkAppAccountToken(token, isCustomers: customerId, app: app, mustBeIssued: true, refusal: Self.tokenNotIssued)
        return token
    }
}
