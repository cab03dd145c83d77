import AppStoreServerAPI
import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// Signing a promotional offer for a customer, the use case behind `POST …/offers/sign`: the
/// engine says whether the customer may redeem a promotional offer in the product's
/// subscription group, then the app's In-App Purchase key signs the offer, bound to an app
/// account token the server issued to the customer (the handler finds or issues it).
package struct PromotionalOfferSigning {
    /// How the offer is signed.
    package enum Format: String {
        /// The ECDSA signature of StoreKit 1 and `Product.PurchaseOption.promotionalOffer(offerID:
        /// keyID:nonce:signature:timestamp:)`.
        case legacy
        /// The signed promotional offer (a JWS) of iOS 18.2 and later.
        case jws
    }

    /// The offer asked for.
    package struct Offer {
        package var customerId: String
        package var productId: String
        package var offerId: String
        package var format: Format
        package var nonce: UUID
        /// For `jws`: any transaction id of the customer (Apple recommends one).
        package var transactionId: String?
    }

    /// Why an offer is not signed.
    package enum Refusal: Error {
        /// The product is not an auto-renewable subscription of the catalog.
        case unknownProduct(String)
        /// The engine's answer: the customer may not redeem a promotional offer in the group.
        case notEligible(group: String, reason: String)
        /// The app has no In-App Purchase key to sign with.
        case noCredentials
        /// The key could not sign.
        case signingFailed
    }

    /// What was signed: the key's id and the instant signed, with the legacy signature or the
    /// JWS.
    package struct Signed {
        package var keyId: String
        package var timestamp: Int64
        package var signature: String?
        package var signedOffer: String?
    }

    package let app: AppRuntime
    package let now: Date

    /// Checks that `offer` may be signed for its customer, whose ledger is `ledger`: a known
    /// subscription product, an eligible customer, a key to sign with.
    package func check(_ offer: Offer, ledger: [LedgerEntry]) throws(Refusal) {
        guard let group = app.catalog.product(offer.productId)?.subscriptionGroupIdentifier else {
            throw .unknownProduct(offer.productId)
        }
        let state = CustomerState(history: PurchaseHistory(ledger: ledger), catalog: app.catalog, at: now)
        guard let eligibility = state.eligibility[group], eligibility.promotionalOffer else {
            throw .notEligible(group: group, reason: state.eligibility[group].map { "\($0.promotionalOfferReason)" } ?? "never subscribed")
        }
        guard app.configuration.appStoreServerAPI != nil, app.signingKey != nil else { throw .noCredentials }
    }

    /// Signs `offer` bound to the customer's app account token `token` (``check(_:ledger:)``
    /// first).
    package func sign(_ offer: Offer, token: String) throws(Refusal) -> Signed {
        guard let settings = app.configuration.appStoreServerAPI, let key = app.signingKey else { throw .noCredentials }
        let timestamp = now.millisecondsSince1970
        var signed = Signed(keyId: key.keyId, timestamp: timestamp)
        do {
            switch offer.format {
            case .legacy:
                signed.signature =
                    try PromotionalOfferSignature(
                        fields: .init(
                            bundleId: app.configuration.bundleId, keyId: key.keyId, productId: offer.productId, offerId: offer.offerId,
                            appAccountToken: token, nonce: offer.nonce, timestamp: timestamp), key: key
                    ).signature
            case .jws:
                let signer = StoreKitJWSSigner(key: key, issuerId: settings.issuerId, bundleId: app.configuration.bundleId)
                signed.signedOffer = try signer.promotionalOffer(
                    productId: offer.productId, offerIdentifier: offer.offerId, transactionId: offer.transactionId, nonce: offer.nonce,
                    issuedAt: now)
            }
        } catch {
            throw .signingFailed
        }
        return signed
    }
}
