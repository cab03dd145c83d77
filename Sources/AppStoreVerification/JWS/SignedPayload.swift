import Foundation

/// A JWS payload decoded once into its typed model, plus the date the chain is checked at.
///
/// Decoding fails only when the payload is not a JSON object (a `verification_failure` before
/// anything else, as in Apple's verifier). A payload that is an object but does not fit the
/// model is kept as a failed ``model`` so the chain and signature are still judged first.
struct SignedPayload<Model: Decodable>: Decodable {
    let model: Result<Model, any Error>

    /// `signedDate`, or `receiptCreationDate` when `signedDate` is absent or `null` (the order
    /// Apple's Python verifier uses for every payload type).
    let validationDateClaim: DateClaim?

    private enum Key: String, CodingKey {
        case signedDate
        case receiptCreationDate
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        validationDateClaim =
            try container.decodeIfPresent(DateClaim.self, forKey: .signedDate)
            ?? container.decodeIfPresent(DateClaim.self, forKey: .receiptCreationDate)
        model = Result { try Model(from: decoder) }
    }
}

/// A timestamp claim in milliseconds, interpreted as Python's `int(value) // 1000` seconds.
enum DateClaim: Decodable {
    /// Whole seconds since 1970, rounded down as Python's floor division does.
    case seconds(Double)
    /// A value Python's `int()` rejects (a list, an object, a non-integer string).
    case unusable

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self), number.isFinite {
            self = .init(milliseconds: number.rounded(.towardZero))
        } else if let flag = try? container.decode(Bool.self) {
            self = .init(milliseconds: flag ? 1 : 0)
        } else if let text = try? container.decode(String.self), let number = Self.pythonInteger(text) {
            self = .init(milliseconds: number)
        } else {
            self = .unusable
        }
    }

    private init(milliseconds: Double) {
        self = .seconds((milliseconds / 1000).rounded(.down))
    }

    /// The instant, or `nil` for an unusable claim.
    var date: Date? {
        if case .seconds(let seconds) = self { return Date(timeIntervalSince1970: seconds) }
        return nil
    }

    /// Parses text the way Python's `int(str)` does for ASCII: surrounding whitespace, an
    /// optional sign, digits with single underscores between them.
    static func pythonInteger(_ text: String) -> Double? {
        var characters = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        var sign = 1.0
        if let first = characters.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            characters = characters.dropFirst()
        }
        guard let first = characters.first, first.isASCII, first.isNumber,
            let last = characters.last, last.isASCII, last.isNumber,
            !characters.contains("__")
        else { return nil }
        var value = 0.0
        for character in characters where character != "_" {
            guard character.isASCII, let digit = character.wholeNumberValue else { return nil }
            value = value * 10 + Double(digit)
        }
        return sign * value
    }
}
