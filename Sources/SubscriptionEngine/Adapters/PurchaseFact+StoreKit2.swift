import AppStoreModels
import Foundation

extension PurchaseFact {
    /// Normalizes a decoded StoreKit 2 transaction (a JWS transaction payload from the device,
    /// the App Store Server API or a V2 notification). `nil` when the payload lacks a
    /// transaction id, product id or purchase date, without which it is no fact at all.
    ///
    /// A `revocationDate` becomes a ``Revocation``: an upgrade when `isUpgraded`, otherwise
    /// classified by `revocationType` (a family-shared transaction without one is a family
    /// revocation, any other a refund). `price` and `currency` become ``Money``.
    public init?(transaction: JWSTransactionDecodedPayload) {
        guard let transactionId = transaction.transactionId, let productId = transaction.productId,
            let purchaseDate = transaction.purchaseDate
        else { return nil }
        let ownership = transaction.inAppOwnershipType.flatMap { Ownership(appleValue: $0.rawValue) } ?? .purchased
        let isUpgraded = transaction.isUpgraded ?? false
        var revocation: Revocation?
        if let date = transaction.revocationDate {
            let kind: RevocationKind
            switch transaction.revocationType {
            case _ where isUpgraded: kind = .upgrade
            case .refundProrated?: kind = .proratedRefund
            case .familyRevoke?: kind = .familyRevoke
            case .refundFull?: kind = .refund
            default: kind = ownership == .familyShared ? .familyRevoke : .refund
            }
            revocation = Revocation(
                date: date, kind: kind, percentage: transaction.revocationPercentage.map(Int.init),
                dueToAppIssue: transaction.revocationReason.map { $0 == .refundedDueToIssue }
            )
        }
        var price: Money?
        if let milliunits = transaction.price, let currency = transaction.currency {
            price = Money(milliunits: milliunits, currency: currency)
        }
        self.init(
            transactionId: transactionId,
            originalTransactionId: transaction.originalTransactionId ?? transactionId,
            productId: productId,
            productType: transaction.type.flatMap { ProductKind(appleValue: $0.rawValue) },
            subscriptionGroupIdentifier: transaction.subscriptionGroupIdentifier,
            purchaseDate: purchaseDate,
            originalPurchaseDate: transaction.originalPurchaseDate,
            expiresDate: transaction.expiresDate,
            quantity: transaction.quantity.map(Int.init) ?? 1,
            offer: Offer(
                appleType: transaction.offerType, discount: transaction.offerDiscountType,
                identifier: transaction.offerIdentifier, price: transaction.price
            ),
            ownership: ownership,
            revocation: revocation,
            isUpgraded: isUpgraded,
            price: price,
            webOrderLineItemId: transaction.webOrderLineItemId,
            signedDate: transaction.signedDate,
            environment: transaction.environment?.rawValue,
            storefront: transaction.storefront
        )
        billingPlanType = transaction.billingPlanType?.rawValue
        if let info = transaction.commitmentInfo, let number = info.billingPeriodNumber, let total = info.totalBillingPeriods {
            commitment = Commitment(
                billingPeriodNumber: Int(number), totalBillingPeriods: Int(total),
                price: info.commitmentPrice.flatMap { milliunits in transaction.currency.map { Money(milliunits: milliunits, currency: $0) } },
                expiresDate: info.commitmentExpiresDate)
        }
    }
}

extension Offer {
    /// Normalizes StoreKit 2's `offerType` (1 introductory, 2 promotional, 3 offer code,
    /// 4 win-back, 5 retention) and `offerDiscountType`. An introductory offer is a free trial when the
    /// discount type says `FREE_TRIAL`, or, in payloads older than that field, when the price is zero.
    /// `nil` when there is no offer.
    init?(appleType: OfferType?, discount: OfferDiscountType?, identifier: String?, price: Int64?) {
        guard let appleType else { return nil }
        let kind: OfferKind
        switch appleType {
        case .introductoryOffer:
            let free = discount == .freeTrial || (discount == nil && price == 0)
            kind = free ? .freeTrial : .introductory
        case .promotionalOffer: kind = .promotional
        case .offerCode: kind = .offerCode
        case .winBackOffer: kind = .winBack
        case .retentionOffer: kind = .retention
        default: kind = .unknown
        }
        self.init(kind: kind, identifier: identifier)
    }
}
