import AppStoreModels
import Foundation

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
    init(payload: ArraySlice<UInt8>) throws(ReceiptDecodingFailure) {
        let decoder = try Self.attributes(of: payload, what: "receipt payload")
        guard let bundleId = try decoder.string(2), let bundleIdData = decoder.raw(2) else {
            throw ReceiptDecodingFailure("receipt payload: bundle identifier (2) missing")
        }
        guard let creationDate = try decoder.date(12) else {
            throw ReceiptDecodingFailure("receipt payload: creation date (12) missing")
        }
        var purchases: [AppReceiptInAppPurchase] = []
        for field in decoder.fields where field.type == 17 {
            purchases.append(try Self.inAppPurchase(field.value))
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
            attributes: decoder.attributes
        )
    }

    private static func inAppPurchase(_ bytes: ArraySlice<UInt8>) throws(ReceiptDecodingFailure) -> AppReceiptInAppPurchase {
        let decoder = try Self.attributes(of: bytes, what: "in-app purchase")
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
            attributes: decoder.attributes
        )
    }

    /// Reads `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    ///
    /// One pass: the SET's elements must tile it, each SEQUENCE's three fields must tile it, the
    /// INTEGERs must be primitive, and a constructed OCTET STRING's segments are read in full.
    private static func attributes(of input: ArraySlice<UInt8>, what: String) throws(ReceiptDecodingFailure) -> AttributeReader {
        let root = try ReceiptTLV.whole(input, deep: false, what)
        guard root.tag == 0x11, root.isConstructed else {
            throw ReceiptDecodingFailure("\(what): expected a constructed SET")
        }
        var fields: [AttributeReader.Field] = []
        fields.reserveCapacity(root.content.count / 16)
        // The SET's members, read in place up to its end.
        let members = input[root.content]
        var next = members.startIndex
        while next < members.endIndex {
            guard let node = try? ReceiptTLV.read(members, at: next, depth: 1, deep: false) else {
                throw ReceiptDecodingFailure("\(what): expected a constructed SET")
            }
            next = node.end
            guard node.tag == 0x10, node.isConstructed else {
                throw ReceiptDecodingFailure("\(what) attribute: expected a constructed SEQUENCE")
            }
            let sequence = input[node.content]
            guard let type = try? ReceiptTLV.read(sequence, at: sequence.startIndex, depth: 2, deep: false),
                let version = try? ReceiptTLV.read(sequence, at: type.end, depth: 2, deep: false),
                let value = try? ReceiptTLV.read(sequence, at: version.end, depth: 2, deep: false),
                value.end == sequence.endIndex
            else { throw ReceiptDecodingFailure("\(what) attribute: expected 3 fields") }
            fields.append(
                AttributeReader.Field(
                    type: try type.smallInteger(in: input, "\(what) attribute type"),
                    version: try version.smallInteger(in: input, "\(what) attribute version"),
                    value: try value.octetString(in: input, "\(what) attribute value", depth: 3)))
        }
        return AttributeReader(fields)
    }
}
