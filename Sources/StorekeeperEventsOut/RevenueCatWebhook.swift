import Crypto
import Foundation
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// A customer event as RevenueCat's webhook sends it: `{"api_version": "1.0", "event": {…}}`,
/// with RevenueCat's event types and fields (RevenueCat's "Event Types and Fields"), for a
/// backend written against RevenueCat that now listens to Storekeeper.
///
/// | Storekeeper event | RevenueCat `type` |
/// |---|---|
/// | `subscription.started` | `INITIAL_PURCHASE`; `RENEWAL` with `is_trial_conversion: true` after a free trial |
/// | `trial.started` | `INITIAL_PURCHASE` (`period_type` `TRIAL`) |
/// | `subscription.renewed` | `RENEWAL` (`is_trial_conversion: false`) |
/// | `subscription.product_changed` | `PRODUCT_CHANGE` (`product_id` the old product, `new_product_id` the new) |
/// | `subscription.auto_renew_disabled` | `CANCELLATION` (`cancel_reason` `UNSUBSCRIBE`) |
/// | `subscription.auto_renew_enabled` | `UNCANCELLATION` |
/// | `subscription.billing_issue` | `BILLING_ISSUE` |
/// | `subscription.expired`, `trial.expired` | `EXPIRATION` (`expiration_reason` from Apple's) |
/// | `subscription.refunded` | `CANCELLATION` (`cancel_reason` `CUSTOMER_SUPPORT`, negative prices) |
/// | `subscription.revoked` | `EXPIRATION` (`expiration_reason` `UNKNOWN`) |
/// | `subscription.extended` | `SUBSCRIPTION_EXTENDED` |
/// | `purchase.one_time` | `NON_RENEWING_PURCHASE` |
/// | `entitlement.granted` | `NON_RENEWING_PURCHASE` (`store` and `period_type` `PROMOTIONAL`) |
/// | `entitlement.revoked` | `EXPIRATION` (`expiration_reason` `DEVELOPER_INITIATED`, `store` `PROMOTIONAL`) |
/// | `test.event` (an operator's test of the destination) | `TEST` |
///
/// Other events have no counterpart and are not sent (``IntegrationConfiguration/revenueCatEventTypes``).
/// The `id` is a name-based UUID (version 5, upper case) of the event's `evt_…` id: the same on
/// every retry, so a receiver that keeps each `id` once sees each event once.
package enum RevenueCatWebhook {
    /// What the ledger says of the event's transaction, beside the event itself.
    package struct Purchase: Sendable {
        package var purchasedAt: Date?
        package var isFamilyShare: Bool
        package var offerIdentifier: String?
        /// Whether the period before this one in the chain was a free trial.
        package var followsTrial: Bool

        package init(purchasedAt: Date? = nil, isFamilyShare: Bool = false, offerIdentifier: String? = nil, followsTrial: Bool = false) {
            self.purchasedAt = purchasedAt
            self.isFamilyShare = isFamilyShare
            self.offerIdentifier = offerIdentifier
            self.followsTrial = followsTrial
        }

        /// The transaction `transactionId` of `ledger` (one chain's entries), if the ledger has it.
        package init?(transactionId: String, ledger: [LedgerEntry]) {
            let history = PurchaseHistory(ledger: ledger)
            guard let purchase = history.purchases[transactionId] else { return nil }
            let chain = history.purchases.values.filter { $0.originalTransactionId == purchase.originalTransactionId }
                .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
            let index = chain.firstIndex { $0.transactionId == transactionId }
            let previous = index.flatMap { $0 > 0 ? chain[$0 - 1] : nil }
            self.init(
                purchasedAt: purchase.purchaseDate, isFamilyShare: purchase.ownership == .familyShared, offerIdentifier: purchase.offer?.identifier,
                followsTrial: previous?.offer?.kind == .freeTrial)
        }
    }

    /// What the app says beyond the event: its RevenueCat app id, how it reports money, its
    /// customers' attributes.
    package struct Settings: Sendable {
        package var appId: String
        package var analytics: AnalyticsConfiguration
        package var attributes: [CustomerAttribute]

        package init(appId: String, analytics: AnalyticsConfiguration, attributes: [CustomerAttribute] = []) {
            self.appId = appId
            self.analytics = analytics
            self.attributes = attributes
        }
    }

    /// The RevenueCat type of a Storekeeper event type, or `nil` when RevenueCat has none.
    package static func type(of type: String, followsTrial: Bool) -> String? {
        switch EventType(rawValue: type) {
        case .subscriptionStarted: followsTrial ? "RENEWAL" : "INITIAL_PURCHASE"
        case .trialStarted: "INITIAL_PURCHASE"
        case .renewed: "RENEWAL"
        case .productChanged: "PRODUCT_CHANGE"
        case .autoRenewDisabled, .refunded: "CANCELLATION"
        case .autoRenewEnabled: "UNCANCELLATION"
        case .billingIssue: "BILLING_ISSUE"
        case .expired, .trialExpired, .revoked, .entitlementRevoked: "EXPIRATION"
        case .extended: "SUBSCRIPTION_EXTENDED"
        case .oneTimePurchase, .entitlementGranted: "NON_RENEWING_PURCHASE"
        case .testEvent: "TEST"
        default: nil
        }
    }

    /// The RevenueCat `id` of the event `eventId`: a version 5 UUID of it, in upper case.
    package static func eventId(_ eventId: String) -> String {
        var bytes = Array(Insecure.SHA1.hash(data: namespace + Data(eventId.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }

    /// The namespace of ``eventId(_:)`` (RFC 9562's URL namespace).
    private static let namespace = Data([
        0x6B, 0xA7, 0xB8, 0x11, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8,
    ])

    /// The webhook's body for `data`, or `nil` when RevenueCat has no counterpart.
    package static func body(data: EventData, purchase: Purchase?, settings: Settings) -> Data? {
        guard let event = event(data: data, purchase: purchase, settings: settings) else { return nil }
        return IntegrationMessages.json(["api_version": "1.0", "event": event])
    }

    /// The `event` object for `data`, or `nil` when RevenueCat has no counterpart. Every field
    /// RevenueCat documents for the type is present, `null` when unknown.
    package static func event(data: EventData, purchase: Purchase?, settings: Settings) -> [String: Any]? {
        let kind = EventType(rawValue: data.type)
        guard let type = type(of: data.type, followsTrial: purchase?.followsTrial == true) else { return nil }
        let isGrant = kind == .entitlementGranted || kind == .entitlementRevoked
        let customer = data.customerId ?? anonymousId(appId: data.appId, chain: data.originalTransactionId ?? data.id)
        var aliases = [customer]
        for alias in data.aliases where alias.kind == CustomerAlias.Kind.appUserId.rawValue && !aliases.contains(alias.value) {
            aliases.append(alias.value)
        }
        let occurred = Timestamp.date(from: data.occurredAt) ?? Date(timeIntervalSince1970: 0)
        var event: [String: Any] = [
            "id": eventId(data.id),
            "type": type,
            "app_id": settings.appId,
            "event_timestamp_ms": milliseconds(occurred),
            "app_user_id": customer,
            "original_app_user_id": customer,
            "aliases": aliases,
            "subscriber_attributes": attributes(settings.attributes),
            "product_id": (kind == .productChanged ? data.previousProductId ?? data.productId : data.productId) ?? NSNull(),
            "entitlement_ids": data.entitlements.flatMap { $0.isEmpty ? nil : $0 } ?? NSNull(),
            "entitlement_id": data.entitlements?.first ?? NSNull(),
            "period_type": isGrant ? "PROMOTIONAL" : periodType(data.periodType),
            "purchased_at_ms": milliseconds(purchase?.purchasedAt ?? occurred),
            "expiration_at_ms": data.expiresDate.flatMap(Timestamp.date(from:)).map(milliseconds) ?? NSNull(),
            "environment": data.environment?.lowercased() == "production" ? "PRODUCTION" : "SANDBOX",
            "store": isGrant ? "PROMOTIONAL" : "APP_STORE",
            "transaction_id": data.transactionId ?? NSNull(),
            "original_transaction_id": data.originalTransactionId ?? NSNull(),
            "is_family_share": purchase?.isFamilyShare ?? false,
            "country_code": data.storefront.flatMap(countryCode) ?? NSNull(),
            "presented_offering_id": data.offeringId ?? NSNull(),
            "offer_code": purchase?.offerIdentifier ?? NSNull(),
        ]
        for (key, value) in money(data: data, refund: kind == .refunded, analytics: settings.analytics) { event[key] = value }
        switch type {
        case "RENEWAL": event["is_trial_conversion"] = kind == .subscriptionStarted
        case "PRODUCT_CHANGE": event["new_product_id"] = data.productId ?? NSNull()
        case "CANCELLATION": event["cancel_reason"] = kind == .refunded ? "CUSTOMER_SUPPORT" : "UNSUBSCRIBE"
        case "EXPIRATION":
            event["expiration_reason"] =
                kind == .entitlementRevoked ? "DEVELOPER_INITIATED" : kind == .revoked ? "UNKNOWN" : expirationReason(data.expirationReason)
        case "BILLING_ISSUE": event["grace_period_expiration_at_ms"] = NSNull()
        default: break
        }
        return event
    }

    /// The prices and shares: `price` in US dollars (with the app's exchange rates; `null` when
    /// they cannot say), `price_in_purchased_currency`, `currency`, and the commission and
    /// take-home shares (from the event's proceeds, else the Small Business Program setting).
    /// Taxes are not modelled: `tax_percentage` is `null`.
    package static func money(data: EventData, refund: Bool, analytics: AnalyticsConfiguration) -> [String: Any] {
        let sign: Decimal = refund ? -1 : 1
        var takehome: Decimal = analytics.smallBusiness ? Decimal(string: "0.85")! : Decimal(string: "0.7")!
        if let price = data.price, price > 0, let proceeds = data.proceeds {
            takehome = rounded(proceeds / price, places: 2)
        }
        let usd = data.price.flatMap { price in data.currency.flatMap { dollars(price, currency: $0, analytics: analytics) } }
        return [
            "price": usd.map { NSDecimalNumber(decimal: sign * $0) } ?? NSNull(),
            "price_in_purchased_currency": data.price.map { NSDecimalNumber(decimal: sign * $0) } ?? NSNull(),
            "currency": data.currency ?? NSNull(),
            "takehome_percentage": NSDecimalNumber(decimal: takehome),
            "commission_percentage": NSDecimalNumber(decimal: 1 - takehome),
            "tax_percentage": NSNull(),
        ]
    }

    /// `amount` of `currency` in US dollars, through the app's reporting currency and its rates
    /// (units of the reporting currency per unit of the other); `nil` when a rate is missing.
    package static func dollars(_ amount: Decimal, currency: String, analytics: AnalyticsConfiguration) -> Decimal? {
        if currency == "USD" { return amount }
        let reporting = analytics.reportingCurrency
        guard let rate = currency == reporting ? 1 : analytics.exchangeRates[currency] else { return nil }
        if reporting == "USD" { return rounded(amount * rate, places: 2) }
        guard let dollarRate = analytics.exchangeRates["USD"], dollarRate > 0 else { return nil }
        return rounded(amount * rate / dollarRate, places: 2)
    }

    static func periodType(_ type: String?) -> String {
        switch type {
        case "trial": "TRIAL"
        case "introductory": "INTRO"
        default: "NORMAL"
        }
    }

    static func expirationReason(_ reason: String?) -> String {
        switch reason.flatMap(ExpirationReason.init(rawValue:)) {
        case .voluntary: "UNSUBSCRIBE"
        case .billingError: "BILLING_ERROR"
        case .priceIncrease: "PRICE_INCREASE"
        default: "UNKNOWN"
        }
    }

    /// RevenueCat's subscriber attributes: each name with its value and when it was set.
    static func attributes(_ attributes: [CustomerAttribute]) -> [String: Any] {
        var result: [String: Any] = [:]
        for attribute in attributes {
            guard let value = attribute.value else { continue }
            result[attribute.key] = ["value": value, "updated_at_ms": milliseconds(attribute.updatedAt)]
        }
        return result
    }

    /// The app user id of a chain no customer claimed: RevenueCat's anonymous id format, from
    /// the chain (the same for every event of the chain).
    static func anonymousId(appId: String, chain: String) -> String {
        let digest = SHA256.hash(data: Data((appId + "\u{1F}" + chain).utf8))
        return "$RCAnonymousID:" + StableDigest.hex(bytes: digest.prefix(16))
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func rounded(_ value: Decimal, places: Int) -> Decimal {
        var input = value
        var output = Decimal()
        NSDecimalRound(&output, &input, places, .bankers)
        return output
    }

    /// The ISO 3166 two-letter code of an App Store storefront's three-letter one.
    static func countryCode(_ storefront: String) -> String? {
        let code = storefront.uppercased()
        guard code.count == 3 else { return code.count == 2 ? code : nil }
        return countries[code]
    }

    /// ISO 3166-1 alpha-3 codes followed by their alpha-2 codes.
    private static let countries: [String: String] = {
        let table =
            """
            ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT AZEAZ BDIBI
            BELBE BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO BRABR BRBBB BRNBN BTNBT
            BVTBV BWABW CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG COKCK COLCO COMKM CPVCV CRICR CUBCU
            CUWCW CXRCX CYMKY CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET
            FINFI FJIFJ FLKFK FRAFR FROFO FSMFM GABGA GBRGB GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR
            GRDGD GRLGL GTMGT GUFGF GUMGU GUYGY HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR
            IRQIQ ISLIS ISRIL ITAIT JAMJM JEYJE JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB
            LBRLR LBYLY LCALC LIELI LKALK LSOLS LTULT LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH
            MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA NCLNC NERNE
            NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ OMNOM PAKPK PANPA PCNPN PERPE PHLPH PLWPW PNGPG POLPL
            PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU RWARW SAUSA SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ
            SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR SVKSK SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC
            TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO TTOTT TUNTN TURTR TUVTV TWNTW TZATZ UGAUG UKRUA UMIUM URYUY
            USAUS UZBUZ VATVA VCTVC VENVE VGBVG VIRVI VNMVN VUTVU WLFWF WSMWS YEMYE ZAFZA ZMBZM ZWEZW
            """
        var result: [String: String] = [:]
        for entry in table.split(whereSeparator: { $0 == " " || $0 == "\n" }) where entry.count == 5 {
            result[String(entry.prefix(3))] = String(entry.suffix(2))
        }
        return result
    }()
}
