import HTTPTypes
import Hummingbird
import Testing

@testable import StorekeeperHTTP
@testable import StorekeeperServer

/// `Authorization: Bearer <credential>`, read without Foundation's character sets.
@Suite("API keys: the bearer credential")
struct BearerCredentialTests {
    static func credential(_ header: String?) -> String? {
        var fields = HTTPFields()
        if let header { fields[.authorization] = header }
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/", headerFields: fields), body: .init(buffer: .init()))
        return APIAuthenticator.bearerCredential(request)
    }

    @Test("the scheme in any case, blanks around the scheme and the key ignored; anything else is no credential")
    func parsing() {
        #expect(Self.credential("Bearer sk_123") == "sk_123")
        #expect(Self.credential("  bEaReR \t sk_123 \t ") == "sk_123")
        #expect(Self.credential("Bearer a b") == "a b")
        for header in [nil, "", "Bearer", "Bearer ", "Bearer \t  ", "Basic sk_123", "Bearersk_123", "Bear sk_123", "\t"] {
            #expect(Self.credential(header) == nil, "\(String(describing: header))")
        }
    }
}
