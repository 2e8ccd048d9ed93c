/// The one exit-status table every command keeps, and the text each `--help` shows.
enum ExitStatus {
    /// Done: reported, intact, stored, wiped as asked.
    static let done: Int32 = 0
    /// The vault is damaged or not there (verify: damage found).
    static let damaged: Int32 = 1
    /// The key is missing, wrong, unreadable, or a key file is refused.
    static let keyProblem: Int32 = 2
    /// Refused to act: the command would destroy or change something it cannot prove it should
    /// (wipe with a key that does not open the vault, resume's recovery withheld).
    static let refused: Int32 = 3
    /// Usage error (ArgumentParser's `ValidationError`).
    static let usage: Int32 = 64

    /// The table as one paragraph.
    static let table = """
        Exit status (every command): 0 done; 1 the vault is damaged or not found; 2 the key is \
        missing or wrong; 3 refused to act (it would destroy what it cannot prove it should); \
        64 usage error. With --json, an error (a usage error too) is a JSON object {"error": \
        {"message", "status"}} on stdout as well as the Error: line on stderr.
        """

    /// The table as a paragraph after a command's own discussion.
    static let help = "\n\n" + table
}
