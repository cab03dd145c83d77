import AppStoreModels
import Foundation

/// Typed access to receipt attributes by type number; the first attribute of a type wins.
///
/// Values are DER inside the attribute's OCTET STRING. Strings may be UTF8String, IA5String,
/// PrintableString or VisibleString; an empty string means the field is absent.
struct AttributeReader {
    private var byType: [Int: Data] = [:]

    init(_ attributes: [ReceiptAttribute]) {
        for attribute in attributes where byType[attribute.type] == nil {
            byType[attribute.type] = attribute.value
        }
    }

    func raw(_ type: Int) -> Data? {
        byType[type]
    }

    func string(_ type: Int) throws(ReceiptDecodingFailure) -> String? {
        guard let (bytes, node) = try node(type) else { return nil }
        // UTF8String, PrintableString, IA5String, VisibleString; primitive only.
        guard [0x0C, 0x13, 0x16, 0x1A].contains(node.identifier) else {
            throw ReceiptDecodingFailure("attribute \(type): expected a string")
        }
        guard let text = String(validating: bytes[node.content], as: UTF8.self) else {
            throw ReceiptDecodingFailure("attribute \(type): invalid UTF-8")
        }
        return text.isEmpty ? nil : text
    }

    func integer(_ type: Int) throws(ReceiptDecodingFailure) -> Int64? {
        guard let (bytes, node) = try node(type) else { return nil }
        guard node.identifier == 0x02, let value = ReceiptIntegerDecoding.int64(bytes[node.content]) else {
            throw ReceiptDecodingFailure("attribute \(type): expected a 64-bit integer")
        }
        return value
    }

    func date(_ type: Int) throws(ReceiptDecodingFailure) -> Date? {
        guard let text = try string(type) else { return nil }
        guard let date = ReceiptTimestamp.date(from: text) else {
            throw ReceiptDecodingFailure("attribute \(type): unreadable date \"\(text.prefix(40))\"")
        }
        return date
    }

    /// The attribute's value: one ASN.1 element taking all of its bytes.
    private func node(_ type: Int) throws(ReceiptDecodingFailure) -> (ArraySlice<UInt8>, ReceiptTLV)? {
        guard let value = byType[type] else { return nil }
        let bytes = [UInt8](value)[...]
        do {
            return (bytes, try ReceiptTLV.whole(bytes))
        } catch {
            throw ReceiptDecodingFailure("attribute \(type): value is not ASN.1")
        }
    }
}
