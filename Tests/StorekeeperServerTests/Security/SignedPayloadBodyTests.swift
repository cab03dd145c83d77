import Foundation
import Testing

@testable import StorekeeperInbox
@testable import StorekeeperServer

/// The V2 body read and written without JSON machinery must agree with the JSON path on every
/// body it accepts, and hand everything else to that path.
@Suite("V2 bodies read without a JSON parser")
struct SignedPayloadBodyTests {
    static let jws = "eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2lnbmF0dXJl-_"

    /// What the general path reads: the `signedPayload` of a JSON object, if it is a string.
    static func parsed(_ body: String) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])?["signedPayload"] as? String
    }

    @Test("Apple's shape, with or without whitespace, gives the JWS the JSON path gives")
    func accepted() {
        for body in [
            #"{"signedPayload":"\#(Self.jws)"}"#,
            #"{ "signedPayload" : "\#(Self.jws)" }"#,
            "\n{\r\n\t\"signedPayload\":\t\"\(Self.jws)\"\n}\n",
        ] {
            #expect(SignedPayloadBody.jws(in: body) == Self.jws)
            #expect(SignedPayloadBody.jws(in: Data(body.utf8)) == Self.parsed(body))
        }
    }

    @Test("an accepted body as long as its JWS and the framing is, byte for byte, its canonical form (the door keeps it as is)")
    func ownCanonicalForm() throws {
        var generator = SystemRandomNumberGenerator()
        let spaces = [" ", "\n", "\t", "\r\n"]
        for round in 0..<200 {
            // The compact body, with whitespace in up to three of its gaps in later rounds.
            var parts = ["{", #""signedPayload""#, ":", "\"" + Self.jws + "\"", "}"]
            for _ in 0..<(round % 4) {
                let gap = Int.random(in: 0..<parts.count, using: &generator)
                parts[gap] += spaces.randomElement(using: &generator)!
            }
            let body = Data(parts.joined().utf8)
            let jws = try #require(SignedPayloadBody.jws(in: body))
            let compact = body.count == jws.utf8.count + SignedPayloadBody.framing
            #expect(compact == (round % 4 == 0))
            if compact { #expect(SignedPayloadBody.canonical(jws) == body) }
        }
    }

    @Test("anything else is left to the JSON path")
    func refused() {
        for body in [
            "", "{}", #"{"signedPayload":""}"#, #"{"signedPayload":"a\/b"}"#, #"{"signedPayload":"a\u0041"}"#,
            #"{"signedPayload":"\#(Self.jws)","signedPayload":"x"}"#, #"{"signedPayload":"\#(Self.jws)","extra":1}"#,
            #"{"extra":1,"signedPayload":"\#(Self.jws)"}"#, #"{"signedPayload":"\#(Self.jws)"} x"#, #"{"signedPayload":"\#(Self.jws)""#,
            #"{"signedPayload":"\#(Self.jws)"}}"#, #"{"signedpayload":"\#(Self.jws)"}"#, #"{"signedPayload":"ab cd"}"#,
            #"{"signedPayload":"a+b"}"#, #"{"signedPayload":123}"#, #"["signedPayload","\#(Self.jws)"]"#, #"{"signedPayload":"é"}"#,
            "{\"signedPayload\":\"a\0b\"}",
        ] {
            #expect(SignedPayloadBody.jws(in: body) == nil, "\(body)")
            #expect(SignedPayloadBody.jws(in: Data(body.utf8)) == nil, "\(body)")
        }
    }

    @Test("every cut of a genuine body is either the whole JWS or left to the JSON path")
    func cuts() {
        let body = Array(#"{"signedPayload":"\#(Self.jws)"}"#.utf8)
        for end in 0..<body.count {
            #expect(SignedPayloadBody.jws(in: Data(body[..<end])) == nil)
        }
    }

    @Test("the stored form is byte for byte what JSONEncoder gives, for compact and for other text")
    func canonical() throws {
        struct Body: Encodable {
            var signedPayload: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCXYZabcxyz0189-_.")
        var samples = [Self.jws, "a", "a/b", "quote\"back\\slash", "line\nbreak", "é", ""]
        for _ in 0..<200 {
            samples.append(String((0..<Int.random(in: 1...64, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for sample in samples {
            #expect(SignedPayloadBody.canonical(sample) == (try encoder.encode(Body(signedPayload: sample))), "\(sample)")
        }
    }
}
