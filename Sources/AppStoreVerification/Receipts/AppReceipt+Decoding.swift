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
        let input = bytes[...]
        let root: ReceiptTLV
        do {
            root = try ReceiptTLV.whole(input)
        } catch {
            throw ReceiptDecodingFailure("\(what): not ASN.1")
        }
        guard root.tag == 0x11, root.isConstructed, let nodes = try? root.children(in: input) else {
            throw ReceiptDecodingFailure("\(what): expected a constructed SET")
        }
        var attributes: [ReceiptAttribute] = []
        attributes.reserveCapacity(nodes.count)
        for node in nodes {
            guard node.tag == 0x10, node.isConstructed, let fields = try? node.children(in: input, depth: 2) else {
                throw ReceiptDecodingFailure("\(what) attribute: expected a constructed SEQUENCE")
            }
            guard fields.count == 3 else { throw ReceiptDecodingFailure("\(what) attribute: expected 3 fields") }
            attributes.append(
                ReceiptAttribute(
                    type: try smallInteger(fields[0], in: input, "\(what) attribute type"),
                    version: try smallInteger(fields[1], in: input, "\(what) attribute version"),
                    value: Data(try octetString(fields[2], in: input, "\(what) attribute value", depth: 3))))
        }
        return attributes
    }

    private static func smallInteger(_ node: ReceiptTLV, in bytes: ArraySlice<UInt8>, _ what: String) throws(ReceiptDecodingFailure) -> Int {
        guard node.tag == 0x02, !node.isConstructed else { throw ReceiptDecodingFailure("\(what): expected a primitive INTEGER") }
        guard let value = ReceiptIntegerDecoding.int64(bytes[node.content]), let int = Int(exactly: value) else {
            throw ReceiptDecodingFailure("\(what): integer out of range")
        }
        return int
    }

    /// The bytes of an OCTET STRING, joining the segments of a constructed (BER) one.
    private static func octetString(
        _ node: ReceiptTLV, in bytes: ArraySlice<UInt8>, _ what: String, depth: Int
    ) throws(ReceiptDecodingFailure)
        -> [UInt8]
    {
        guard node.tag == 0x04, depth < 11 else { throw ReceiptDecodingFailure("\(what): expected an OCTET STRING") }
        guard node.isConstructed else { return Array(bytes[node.content]) }
        guard let segments = try? node.children(in: bytes, depth: depth) else { throw ReceiptDecodingFailure("\(what): expected an OCTET STRING") }
        var joined: [UInt8] = []
        for segment in segments {
            joined += try octetString(segment, in: bytes, what, depth: depth + 1)
        }
        return joined
    }
}
