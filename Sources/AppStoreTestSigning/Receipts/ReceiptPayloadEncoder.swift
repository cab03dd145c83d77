import AppStoreModels
import AppStoreVerification
import Foundation
import SwiftASN1

/// Encodes an ``AppReceipt`` as the DER attribute set Apple signs inside an app receipt.
///
/// Writes the attributes App Store receipts carry, with Apple's ASN.1 types: UTF8String for
/// receipt type, bundle id, versions, product and transaction ids; IA5String for dates
/// (`2020-07-14T19:36:40Z`, empty when absent); INTEGER for ids, quantity and flags; raw bytes
/// for the opaque value and the device hash. `SET OF` members are sorted as DER requires.
public enum ReceiptPayloadEncoder {
    /// The payload bytes for `receipt`. The bundle id's DER value is recomputed from
    /// `receipt.bundleId`; `sha1Hash` is written as given (see ``AppReceipt/deviceHash(for:)``).
    public static func encode(_ receipt: AppReceipt) throws -> [UInt8] {
        var attributes: [[UInt8]] = []
        func add(_ type: Int, _ value: [UInt8]) throws {
            attributes.append(try attribute(type, value))
        }
        if let receiptType = receipt.receiptType { try add(0, try utf8(receiptType.rawValue)) }
        try add(1, try integer(receipt.appItemId ?? 0))
        try add(2, try utf8(receipt.bundleId))
        try add(3, try utf8(receipt.applicationVersion ?? ""))
        try add(4, Array(receipt.opaqueValue ?? Data()))
        try add(5, Array(receipt.sha1Hash ?? Data()))
        try add(8, try ia5(""))
        try add(10, try ia5(receipt.ageRating ?? "4+"))
        try add(12, try ia5(timestamp(receipt.receiptCreationDate)))
        try add(15, try integer(receipt.downloadId ?? 0))
        try add(16, try integer(receipt.versionExternalIdentifier ?? 0))
        if let date = receipt.originalPurchaseDate { try add(18, try ia5(timestamp(date))) }
        try add(19, try utf8(receipt.originalApplicationVersion ?? ""))
        if let date = receipt.expirationDate { try add(21, try ia5(timestamp(date))) }
        for purchase in receipt.inAppPurchases {
            try add(17, try inAppPurchase(purchase))
        }
        return try set(attributes)
    }

    /// The DER value Apple stores for a bundle id (attribute 2): a UTF8String.
    public static func bundleIdData(_ bundleId: String) throws -> Data {
        Data(try utf8(bundleId))
    }

    private static func inAppPurchase(_ purchase: AppReceiptInAppPurchase) throws -> [UInt8] {
        var attributes: [[UInt8]] = [
            try attribute(1701, try integer(Int64(purchase.quantity ?? 1))),
            try attribute(1702, try utf8(purchase.productId ?? "")),
            try attribute(1703, try utf8(purchase.transactionId ?? "")),
            try attribute(1704, try ia5(purchase.purchaseDate.map(timestamp) ?? "")),
            try attribute(1705, try utf8(purchase.originalTransactionId ?? purchase.transactionId ?? "")),
            try attribute(1706, try ia5(purchase.originalPurchaseDate.map(timestamp) ?? "")),
            try attribute(1707, try integer(Int64(purchase.productType ?? (purchase.expiresDate == nil ? 1 : 3)))),
            try attribute(1708, try ia5(purchase.expiresDate.map(timestamp) ?? "")),
            try attribute(1711, try integer(purchase.webOrderLineItemId ?? 0)),
            try attribute(1712, try ia5(purchase.cancellationDate.map(timestamp) ?? "")),
            try attribute(1713, try integer(purchase.isTrialPeriod == true ? 1 : 0)),
            try attribute(1719, try integer(purchase.isInIntroOfferPeriod == true ? 1 : 0)),
        ]
        if let offer = purchase.promotionalOfferId {
            attributes.append(try attribute(1721, try utf8(offer)))
        }
        return try set(attributes)
    }

    /// `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    private static func attribute(_ type: Int, _ value: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { sequence in
            try sequence.serialize(Int64(type))
            try sequence.serialize(Int64(type == 4 ? 2 : 1))
            sequence.appendPrimitiveNode(identifier: .octetString) { $0.append(contentsOf: value) }
        }
        return serializer.serializedBytes
    }

    private static func set(_ members: [[UInt8]]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .set) { set in
            for member in members.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                set.serializeRawBytes(member)
            }
        }
        return serializer.serializedBytes
    }

    private static func utf8(_ string: String) throws -> [UInt8] {
        primitive(.utf8String, Array(string.utf8))
    }

    private static func ia5(_ string: String) throws -> [UInt8] {
        primitive(.ia5String, Array(string.utf8))
    }

    private static func integer(_ value: Int64) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }

    private static func primitive(_ identifier: ASN1Identifier, _ content: [UInt8]) -> [UInt8] {
        var serializer = DER.Serializer()
        serializer.appendPrimitiveNode(identifier: identifier) { $0.append(contentsOf: content) }
        return serializer.serializedBytes
    }

    /// `2020-07-14T19:36:40Z`, as App Store receipts write dates.
    private static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
