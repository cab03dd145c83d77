import AppStoreModels
import Foundation
import SwiftASN1

extension AppReceipt {
    /// The largest receipt accepted, far above any real one (the biggest known is ~80 KB).
    static let maximumSize = 16 * 1024 * 1024

    /// Decodes a receipt's payload **without** checking its signature or chain.
    ///
    /// For inspection and for the fraud pre-filter only; trust a receipt only through
    /// ``ReceiptVerifier``. Accepts binary or base64 input; returns `nil` if it is not a
    /// readable app receipt.
    public static func decodeUnverified(_ receipt: Data) -> AppReceipt? {
        guard case .pkcs7(let bytes) = ReceiptInput.classify(receipt),
            let container = try? ReceiptSignedData(berEncoded: bytes)
        else { return nil }
        return try? AppReceipt(payload: container.content)
    }

    /// Decodes the payload `ReceiptAttributes ::= SET OF ReceiptAttribute`.
    init(payload: [UInt8]) throws(ReceiptDecodingFailure) {
        let attributes = try Self.attributes(of: payload, what: "receipt payload")
        let decoder = AttributeReader(attributes)
        guard let bundleId = try decoder.string(2), let bundleIdData = decoder.raw(2) else {
            throw ReceiptDecodingFailure("receipt payload: bundle identifier (2) missing")
        }
        guard let creationDate = try decoder.date(12) else {
            throw ReceiptDecodingFailure("receipt payload: creation date (12) missing")
        }
        var purchases: [AppReceiptInAppPurchase] = []
        for attribute in attributes where attribute.type == 17 {
            purchases.append(try Self.inAppPurchase(Array(attribute.value)))
        }
        self.init(
            receiptType: try decoder.string(0).map(LegacyReceiptType.init(rawValue:)),
            appItemId: try decoder.integer(1),
            bundleId: bundleId,
            bundleIdData: bundleIdData,
            applicationVersion: try decoder.string(3),
            opaqueValue: decoder.raw(4),
            sha1Hash: decoder.raw(5),
            ageRating: try decoder.string(10),
            receiptCreationDate: creationDate,
            downloadId: try decoder.integer(15),
            versionExternalIdentifier: try decoder.integer(16),
            originalPurchaseDate: try decoder.date(18),
            originalApplicationVersion: try decoder.string(19),
            expirationDate: try decoder.date(21),
            inAppPurchases: purchases,
            attributes: attributes
        )
    }

    private static func inAppPurchase(_ bytes: [UInt8]) throws(ReceiptDecodingFailure) -> AppReceiptInAppPurchase {
        let attributes = try Self.attributes(of: bytes, what: "in-app purchase")
        let decoder = AttributeReader(attributes)
        return AppReceiptInAppPurchase(
            quantity: try decoder.integer(1701).flatMap { Int(exactly: $0) },
            productId: try decoder.string(1702),
            transactionId: try decoder.string(1703),
            purchaseDate: try decoder.date(1704),
            originalTransactionId: try decoder.string(1705),
            originalPurchaseDate: try decoder.date(1706),
            productType: try decoder.integer(1707).flatMap { Int(exactly: $0) },
            expiresDate: try decoder.date(1708),
            webOrderLineItemId: try decoder.integer(1711).flatMap { $0 == 0 ? nil : $0 },
            cancellationDate: try decoder.date(1712),
            isTrialPeriod: try decoder.integer(1713).map { $0 != 0 },
            isInIntroOfferPeriod: try decoder.integer(1719).map { $0 != 0 },
            promotionalOfferId: try decoder.string(1721),
            attributes: attributes
        )
    }

    /// Reads `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    private static func attributes(of bytes: [UInt8], what: String) throws(ReceiptDecodingFailure) -> [ReceiptAttribute] {
        let root: ASN1Node
        do {
            root = try BER.parse(bytes)
        } catch {
            throw ReceiptDecodingFailure("\(what): not ASN.1")
        }
        return try root.children(.set, what).map { node throws(ReceiptDecodingFailure) in
            let fields = try node.children(.sequence, "\(what) attribute")
            guard fields.count == 3 else { throw ReceiptDecodingFailure("\(what) attribute: expected 3 fields") }
            return ReceiptAttribute(
                type: try fields[0].smallInteger("\(what) attribute type"),
                version: try fields[1].smallInteger("\(what) attribute version"),
                value: Data(try fields[2].octetStringBytes("\(what) attribute value"))
            )
        }
    }
}
