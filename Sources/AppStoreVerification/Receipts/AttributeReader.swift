import AppStoreModels
import Foundation
import SwiftASN1

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
        guard let node = try node(type) else { return nil }
        let stringTypes: [ASN1Identifier] = [.utf8String, .ia5String, .printableString, .visibleString]
        guard stringTypes.contains(node.identifier), case .primitive(let bytes) = node.content else {
            throw ReceiptDecodingFailure("attribute \(type): expected a string")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ReceiptDecodingFailure("attribute \(type): invalid UTF-8")
        }
        return text.isEmpty ? nil : text
    }

    func integer(_ type: Int) throws(ReceiptDecodingFailure) -> Int64? {
        guard let node = try node(type) else { return nil }
        guard node.identifier == .integer, case .primitive(let bytes) = node.content,
            let value = ReceiptIntegerDecoding.int64(bytes)
        else {
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

    private func node(_ type: Int) throws(ReceiptDecodingFailure) -> ASN1Node? {
        guard let value = byType[type] else { return nil }
        do {
            return try BER.parse(Array(value))
        } catch {
            throw ReceiptDecodingFailure("attribute \(type): value is not ASN.1")
        }
    }
}
