import Foundation
import StorekeeperStore
import Testing

@Suite("Database location")
struct DatabaseLocationTests {
    @Test("no URL means SQLite in the data directory; postgres URLs mean PostgreSQL")
    func resolves() throws {
        #expect(try DatabaseLocation.resolve(databaseURL: nil, dataDirectory: "/var/sk") == .sqlite(path: "/var/sk/storekeeper.sqlite"))
        #expect(try DatabaseLocation.resolve(databaseURL: "postgres://u:p@h/db", dataDirectory: "/x") == .postgres(url: "postgres://u:p@h/db"))
        #expect(try DatabaseLocation.resolve(databaseURL: "sqlite:///tmp/a.db", dataDirectory: "/x") == .sqlite(path: "/tmp/a.db"))
        #expect(throws: StoreError.self) { try DatabaseLocation.resolve(databaseURL: "mysql://h/db", dataDirectory: "/x") }
    }

    @Test("the description for logs hides the PostgreSQL password")
    func redacts() {
        let text = DatabaseLocation.postgres(url: "postgres://user:s3cret@127.0.0.1:5432/app?sslmode=disable").redactedDescription
        #expect(!text.contains("s3cret"))
        #expect(text.contains("127.0.0.1"))
    }
}
