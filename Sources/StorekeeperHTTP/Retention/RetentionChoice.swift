import AppStoreModels
import Foundation
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// What to show a customer on Apple's cancellation sheet, chosen from the offerings document's
/// retention placement and the customer's state: the first candidate (live experiment, matching
/// rules, default) whose answer the customer may take.
///
/// - a `message` is always shown;
/// - an `alternateProduct` must be another auto-renewable subscription of the catalog than the one
///   being cancelled;
/// - a `promotionalOffer` needs the engine's promotional-offer eligibility in the product's group,
///   a subscription that is not in billing retry or a grace period (as Apple rules for win-back
///   offers), and an In-App Purchase key to sign it with.
package struct RetentionChoice {
    package let app: AppRuntime
    package let document: OfferingsDocument
    package let now: Date

    /// The request as the engine sees it.
    package struct Subject {
        package var customerId: String
        package var originalTransactionId: String
        package var productId: String
        package var locale: String?
        package var state: CustomerState
        package var segment: OfferingsDocument.CustomerSegment
        package var storefront: String?
    }

    /// A usable candidate.
    package struct Chosen {
        package var placement: String
        package var offering: OfferingsDocument.Offering
        package var answer: OfferingsDocument.RetentionAnswer
        package var choice: OfferingChoice
    }

    /// Why a candidate cannot be shown (kept for the logs and the tests).
    package enum Skip: Equatable {
        case sameProduct
        case unknownProduct
        case notEligible
        case billingProblem
        case noSigningKey
    }

    /// The document's retention placement (there is at most one).
    package var placement: OfferingsDocument.Placement? {
        document.placements.first { $0.kind == .retention }
    }

    /// The first usable candidate, or nil (Apple then shows the app's default message).
    package func choose(_ subject: Subject, enrolled: (String) -> String?) -> Chosen? {
        guard let placement else { return nil }
        let request = OfferingRequest(
            customerId: subject.customerId, placement: placement.id, storefront: subject.storefront, segment: subject.segment,
            productId: subject.productId, locale: subject.locale)
        for (offering, choice) in document.candidates(request, now: now, enrolled: enrolled) ?? [] {
            guard let answer = offering.retention, skip(answer, for: subject) == nil else { continue }
            return Chosen(placement: placement.id, offering: offering, answer: answer, choice: choice)
        }
        return nil
    }

    /// Why `answer` cannot be shown to `subject`, or nil when it can.
    package func skip(_ answer: OfferingsDocument.RetentionAnswer, for subject: Subject) -> Skip? {
        switch answer.kind {
        case .message:
            return nil
        case .alternateProduct:
            guard let product = answer.productId, app.catalog.product(product)?.type == .autoRenewable else { return .unknownProduct }
            return product == subject.productId ? .sameProduct : nil
        case .promotionalOffer:
            let productId = answer.productId ?? subject.productId
            guard let group = app.catalog.product(productId)?.subscriptionGroupIdentifier else { return .unknownProduct }
            guard subject.state.eligibility[group]?.promotionalOffer == true else { return .notEligible }
            let chain = subject.state.subscriptions.first { $0.originalTransactionId == subject.originalTransactionId }
            if let status = chain?.status, [.billingRetry, .gracePeriod].contains(status) { return .billingProblem }
            return app.signingKey == nil || app.configuration.appStoreServerAPI == nil ? .noSigningKey : nil
        }
    }
}
