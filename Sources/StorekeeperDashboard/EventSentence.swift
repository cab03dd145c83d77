import Foundation
import StorekeeperStore

/// An event of the customer timeline in a person's words: what happened to which product, with
/// dates as days in the app's time zone and prices with their currency ("Renewed
/// premium.monthly until 30 Jul 2027 — 9.99 USD"). The event's raw details are shown beside
/// it, as ``EventDetails/json`` writes them.
package struct EventSentence {
    private let days: DateFormatter

    package init(timeZone identifier: String) {
        days = DateFormatter()
        days.calendar = Calendar(identifier: .gregorian)
        days.locale = Locale(identifier: "en_US_POSIX")
        days.timeZone = TimeZone(identifier: identifier) ?? .gmt
        days.dateFormat = "d MMM yyyy"
    }

    /// A day as people write it: `30 Jul 2027`.
    package func day(_ date: Date) -> String { days.string(from: date) }

    /// The sentence for `event`; a type this version does not know reads as its name and product.
    package func text(_ event: EventRecord) -> String {
        let details = event.details
        let product = details.productId ?? "a product"
        let until = details.expiresDate.map { " until \(day($0))" } ?? ""
        let price = Self.price(details).map { " — \($0)" } ?? ""
        switch event.type {
        case .statusChanged:
            let to = Self.status(details.to)
            let ends = details.expiresDate.map { ", period ends \(day($0))" } ?? ""
            guard let from = details.from else { return "\(product) is \(to)\(ends)" }
            return "\(product) went from \(Self.status(from)) to \(to)\(ends)"
        case .subscriptionStarted: return "Subscribed to \(product)\(until)\(price)"
        case .trialStarted: return "Started a free trial of \(product)\(until)"
        case .trialConverted: return "Trial of \(product) became paid\(until)\(price)"
        case .trialExpired: return "Trial of \(product) ended" + Self.because(details.expirationReason)
        case .renewed: return "Renewed \(product)\(until)\(price)"
        case .productChanged:
            return "Changed from \(details.previousProductId ?? "another product") to \(product)\(until)\(price)"
        case .autoRenewDisabled:
            return "Turned off auto-renew of \(product)" + (details.expiresDate.map { "; access until \(day($0))" } ?? "")
        case .autoRenewEnabled: return "Turned auto-renew of \(product) back on"
        case .billingIssue: return "Apple could not charge for \(product) and is retrying"
        case .gracePeriodStarted: return "Apple could not charge for \(product); access goes on in a grace period"
        case .billingRecovered: return "Charged for \(product) after a billing issue\(until)\(price)"
        case .expired: return "\(product) expired" + Self.because(details.expirationReason)
        case .refunded: return "Apple refunded \(product)\(price)"
        case .revoked: return "Access to \(product) was revoked"
        case .extended: return "Renewal date of \(product) extended" + (details.expiresDate.map { " to \(day($0))" } ?? "")
        case .priceIncrease:
            return "Price increase of \(product)" + (details.priceIncreaseConsent.map { ": customer consent \($0)" } ?? "")
        case .oneTimePurchase: return "Bought \(product)\(price)"
        case .entitlementGranted: return "Granted \(Self.entitlements(details, product))\(until)"
        case .entitlementRevoked: return "Took back \(Self.entitlements(details, product))"
        case .purchaseRecorded:
            return "The app sent a purchase of \(product)" + (details.transactionId.map { " (transaction \($0))" } ?? "")
        case .grantRecorded: return "Support granted \(product)"
        case .revocationRecorded: return "Support took back transaction \(details.transactionId ?? "?")"
        case .notificationProcessed:
            let type = [details.notificationType, details.subtype].compactMap { $0 }.joined(separator: " / ")
            return "Processed Apple's \(type.isEmpty ? "" : type + " ")notification"
        case .consumptionRequested: return "Apple asked about consumption of \(product) for a refund request"
        case .consumptionSent:
            return "Sent Apple consumption information for a refund request"
                + (details.refundPreference.map { " (refund preference \($0))" } ?? "")
        case .consumptionNotAnswered: return "Did not answer Apple's refund request" + Self.because(details.reason ?? details.policy)
        case .consumptionExpired:
            return "Apple's refund request went unanswered" + (details.deadline.map { " past its deadline of \(day($0))" } ?? "")
        case .problemOpened: return "Problem opened: \(details.reason ?? details.problemKind ?? "")\(price)"
        case .problemResolved: return "Problem resolved: \(details.reason ?? details.problemKind ?? "")"
        case .experimentEnrolled:
            return "Joined experiment \(details.experimentId ?? "?")" + (details.variant.map { " as variant \($0)" } ?? "")
        case .retentionMessageShown: return "Opened the cancellation sheet of \(product): shown message \(details.messageIdentifier ?? "?")"
        case .retentionAlternateProductShown:
            return "Opened the cancellation sheet of \(product): offered to switch to \(details.alternateProductId ?? "?")"
                + (details.billingPlanType == "MONTHLY" ? " billed monthly" : "")
        case .retentionOfferShown: return "Opened the cancellation sheet of \(product): offered \(details.offerIdentifier ?? "?")"
        case .retentionDefaultShown: return "Opened the cancellation sheet of \(product): Apple's default message shown"
        default: return event.type.rawValue + (details.productId.map { " of \($0)" } ?? "") + until + price
        }
    }

    /// `9.99 USD`, and the reporting currency's amount beside another currency's: `9.99 EUR (10.80 USD)`.
    package static func price(_ details: EventDetails) -> String? {
        guard let amount = details.price else { return nil }
        var text = "\(Self.amount(amount)) \(details.currency ?? "")".trimmingCharacters(in: .whitespaces)
        if let converted = details.priceInReportingCurrency, let reporting = details.reportingCurrency, reporting != details.currency {
            text += " (\(Self.amount(converted)) \(reporting))"
        }
        return text
    }

    /// An amount as written on a price tag: a fraction of one digit gets a second (`9.90`, not `9.9`).
    package static func amount(_ value: Decimal) -> String {
        let text = value.description
        guard let dot = text.firstIndex(of: "."), text.distance(from: dot, to: text.endIndex) == 2 else { return text }
        return text + "0"
    }

    private static func status(_ status: String?) -> String {
        switch status {
        case "billingRetry": "in billing retry"
        case "gracePeriod": "in a grace period"
        case let status?: status
        case nil: "unknown"
        }
    }

    private static func because(_ reason: String?) -> String { reason.map { " (\($0))" } ?? "" }

    private static func entitlements(_ details: EventDetails, _ product: String) -> String {
        guard let names = details.entitlements, !names.isEmpty else { return product }
        return names.joined(separator: ", ") + " (\(product))"
    }
}
