/// One `Migrations/*.sql` file as it was at build time (bytes exactly as written).
struct EmbeddedMigrationFile: Sendable {
    let fileName: String
    let bytes: [UInt8]
}
