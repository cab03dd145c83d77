import AppStoreModels
import Foundation
import Testing

@Suite struct AppStoreEnvironmentTests {
    @Test func unknownEnvironmentDecodesAndRoundTrips() throws {
        let decoded = try JSONDecoder().decode([AppStoreEnvironment].self, from: Data(#"["Sandbox","Staging2027"]"#.utf8))
        #expect(decoded == [.sandbox, AppStoreEnvironment(rawValue: "Staging2027")])
        #expect(!decoded[1].isKnown)
        let encoded = try JSONEncoder().encode(decoded)
        #expect(String(decoding: encoded, as: UTF8.self) == #"["Sandbox","Staging2027"]"#)
    }
}
