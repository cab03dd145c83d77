import AppStoreModels
import AppStoreTestSigning
import Foundation

/// Builds Apple-shaped payloads (through their JSON form, as Apple sends them) and signs them.
enum SignedData {
    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: Any]) throws -> T {
        try JSONDecoder().decode(type, from: JSONSerialization.data(withJSONObject: object))
    }

    static func ms(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    static func transaction(
        id: String, original: String, product: String = "pro.monthly", purchase: Date, expires: Date?, signed: Date,
        revoked: Date? = nil, token: String? = nil, bundle: String = Fixture.bundle, price: Int64 = 9990, currency: String = "USD",
        freeTrial: Bool = false
    ) throws -> JWSTransactionDecodedPayload {
        var object: [String: Any] = [
            "transactionId": id, "originalTransactionId": original, "bundleId": bundle, "productId": product,
            "purchaseDate": ms(purchase), "originalPurchaseDate": ms(purchase), "signedDate": ms(signed), "quantity": 1,
            "type": expires == nil ? "Non-Consumable" : "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
            "environment": "Sandbox", "transactionReason": "PURCHASE", "storefront": "USA", "currency": currency, "price": price,
        ]
        if let expires {
            object["expiresDate"] = ms(expires)
            object["subscriptionGroupIdentifier"] = "pro"
        }
        if let revoked {
            object["revocationDate"] = ms(revoked)
            object["revocationReason"] = 0
        }
        if let token { object["appAccountToken"] = token }
        if freeTrial {
            object["offerType"] = 1
            object["offerDiscountType"] = "FREE_TRIAL"
        }
        return try decode(JWSTransactionDecodedPayload.self, object)
    }

    static func renewal(
        original: String, autoRenew: Bool, billingRetry: Bool = false, grace: Date? = nil, signed: Date
    ) throws -> JWSRenewalInfoDecodedPayload {
        var object: [String: Any] = [
            "originalTransactionId": original, "productId": "pro.monthly", "autoRenewProductId": "pro.monthly",
            "autoRenewStatus": autoRenew ? 1 : 0, "isInBillingRetryPeriod": billingRetry, "signedDate": ms(signed), "environment": "Sandbox",
        ]
        if let grace { object["gracePeriodExpiresDate"] = ms(grace) }
        return try decode(JWSRenewalInfoDecodedPayload.self, object)
    }

    /// A V2 notification body `{"signedPayload": …}` signed by `ca`.
    static func notification(
        _ ca: TestCertificateAuthority, type: String, subtype: String? = nil, uuid: String = UUID().uuidString, signed: Date,
        transaction: JWSTransactionDecodedPayload?, renewal: JWSRenewalInfoDecodedPayload?
    ) throws -> String {
        var data: [String: Any] = ["environment": "Sandbox", "bundleId": Fixture.bundle]
        if let transaction { data["signedTransactionInfo"] = try ca.signTransaction(transaction) }
        if let renewal { data["signedRenewalInfo"] = try ca.signRenewalInfo(renewal) }
        var object: [String: Any] = ["notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": ms(signed), "data": data]
        if let subtype { object["subtype"] = subtype }
        let payload = try decode(ResponseBodyV2DecodedPayload.self, object)
        let body = ["signedPayload": try ca.signNotification(payload)]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// A `SUBSCRIBED`/`INITIAL_BUY` notification for a new chain bought an hour before `now`,
    /// renewing, signed a minute before `now`.
    static func subscribed(_ ca: TestCertificateAuthority, chain: String, now: Date) throws -> String {
        try notification(
            ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: now - 60,
            transaction: try transaction(id: chain, original: chain, purchase: now - 3600, expires: now + 30 * Fixture.day, signed: now - 60),
            renewal: try renewal(original: chain, autoRenew: true, signed: now - 60))
    }
}
