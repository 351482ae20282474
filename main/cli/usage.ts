import { defaultDataDir } from '../bridge/data-dir.js';

/** The CLI's help text: every command, as `rx-batch --help` and a usage error print it. */
export function usageText(): string {
  return `Usage: rx-batch <command> [options]        (npm run cli -- <command> …)

Commands:
  env add NAME --api URL --issuer URL --client-id ID
            [--client-secret S | --client-secret-env VAR | --client-secret-stdin] [--unverified]
            [--grant device|client_credentials]
                     add or update an environment (NAME is its id: lower-case letters, digits, dashes); the
                     grant defaults to client_credentials with a secret, device without; --client-secret-env
                     reads the secret from the environment variable VAR, --client-secret-stdin from standard
                     input (one trailing newline taken off; both keep it out of the process list, which
                     --client-secret S does not: it is taken with a warning on stderr); a secret
                     starting with "-" is written --client-secret=S. The secret is saved only once the identity
                     server accepted it (a token request, which also signs in); refused, it is not saved (exit
                     1); if the server cannot be reached it is not saved either, unless --unverified, which
                     saves it unchecked and says so; an answer that cannot be used (no access token, not
                     Bearer) saves nothing, the environment neither (exit 1). local-sandbox may be pointed at a
                     running sandbox (npm run sandbox) this way
  env list           the environments and whether each is signed in
  login ENV          sign in: device sign-in prints a code and a URL and waits; client credentials uses the
                     saved secret
  logout ENV         forget the sign-in
  template FILE [--guide FILE]
                     write our CSV template with one example order (the Import screen's "Download template"),
                     and with --guide the column guide: what each column takes, the coded ones their values
  import FILE --env ENV [--profile NAME | --no-profile] [--encoding E] [--route v1|v2|hl7] [--problem-text]
                     stage a CSV (our template or a mapped layout), HL7 v2 or JSON-array file as a batch for
                     review; problems are listed with their row or message and field (exit 1 when some orders
                     need fixing, 2 when the file cannot be imported), each with its text on a terminal or with
                     --problem-text, else its code only (texts quote patient values); without --profile a saved profile is
                     chosen by the CSV header or the HL7 sender, --no-profile uses none (the template or
                     columns matched by name; HL7's standard field map); --route: v1 create-with-clinic
                     (default), v2 create, or hl7 (forward the original messages; HL7 files only)
  batch list [--env ENV] [--limit N] [--before BATCH]
                     the imported batches, newest first (50 unless --limit, 1-500): each one's number, when it
                     was imported, its environment, its orders (valid, invalid, accepted) and its file; when
                     older ones remain, the last line gives the command for the next page (--before)
  batch show BATCH   each staged order: its body exactly as it would be sent, its problems and provenance
                     (with --json also what the last batch check found for it)
  batch check BATCH [--fresh]
                     check the staged orders with the service: each distinct dm+d code (product, stock,
                     price) and the courier codes; prints the warnings (out of stock, unknown code, courier
                     not listed) by order and item, and what could not be checked and why (offline, signed
                     out, service error); answers younger than 5 minutes are reused unless --fresh (exit 1
                     on warnings or anything not checked; Ctrl+C cancels, keeping the answers that came)
  batch export BATCH --template FILE
                     the batch in our CSV template
  batch errors BATCH FILE
                     the invalid orders' original rows plus an errors column, to fix and import again
  accept BATCH       queue the batch's valid orders in the outbox (invalid ones stay staged)
  submit --env ENV [--until-idle]
                     send queued orders and cancel commands; runs until interrupted, or with --until-idle
                     until nothing is queued, sending or in doubt (or sending is blocked: sign-in, outage)
  serve --env ENV [--mllp HOST:PORT] [--watch DIR]... [--on-arrival send|hold] [--send-from SENDER]...
            [--hold-from SENDER]... [--allow ADDRESS]... [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]]
            [--max-message-bytes N] [--max-connections N] [--progress-seconds N] [--ui [127.0.0.1:PORT]]
                     live intake until SIGTERM/SIGINT: an MLLP listener (127.0.0.1 unless HOST is given;
                     --allow limits the peers; --tls-client-ca admits only peers with a certificate that CA
                     issued; --max-connections, default 256, and --max-message-bytes, default 1 MiB, bound
                     what it holds) and watched folders feed staging; with send valid orders go to
                     the outbox at once, with hold they wait for review; the rules are ENV's saved ones
                     (intake rules, below; hold when none are saved), and --on-arrival, --send-from and
                     --hold-from win over them for this run only (a sender given gets that rule, the other
                     saved senders keep theirs); says the rules on stderr; sends and tracks ENV meanwhile;
                     prints "mllp: HOST:PORT" and "watching: DIR" when ready; --ui also serves the app's
                     page on 127.0.0.1 (prints "ui: URL"; the app started on this data folder opens it)
  intake rules --env ENV [--on-arrival send|hold] [--send-from SENDER]... [--hold-from SENDER]...
            [--forget SENDER]...
                     show ENV's saved staging rules, or change them (audited): --on-arrival the default for
                     every sender, --send-from/--hold-from a sender's own rule (SENDER is APP^FACILITY, MSH-3
                     and MSH-4, or APP for every facility of APP; matched as messages write them), --forget
                     drops a sender's rule; other saved senders keep theirs; serve and the app's Intake
                     screen use them from their next start
  profile add-hl7 NAME --sender APP^FACILITY [--message-type RDE^O11] --set FIELD=VALUE...
            [--clinic CODE]... [--peer ADDR]...
                     save an HL7 mapping profile for a sender (what a message cannot carry, e.g.
                     --set prescription.paymentType=Account --set prescription.courierCode=RMT24
                     --set prescription.currencyCode=GBP); --clinic binds the sender to the clinic codes
                     it may order and cancel for, --peer to the addresses or CIDR blocks (10.20.0.0/16)
                     its messages may come from (live intake; without them, any clinic and any peer)
  profile list       the saved mapping profiles
  profile remove NAME
                     delete a saved profile
  profile export NAME FILE
                     write a saved profile (a CSV layout or an HL7 sender's, as the app's Import screen
                     saves them) to FILE, to take it to another data directory, e.g. the one serve runs on
  profile import FILE [--name NAME]
                     save the profile in FILE (as profile export wrote it), under its own name or NAME; one
                     of that name is replaced
  status [--refresh] [--env ENV]
                     every order: clinic, clinic order id, state, pharmacy order id, remote status;
                     --refresh asks the service for the latest statuses first
  cancel CLINIC_ORDER_ID --reason TEXT [--env ENV] [--clinic CODE]
                     withdraw an unsent order, or queue a cancel for one the service has (sent by submit)
  retry CLINIC_ORDER_ID... [--env ENV] [--clinic CODE] | retry --held --env ENV [--clinic CODE]
                     release held orders (a 403 from a firewall, set aside after repeated failures) back to the
                     queue, as the app's "Send again now" does (a rejected order named here too); --held every
                     held order of ENV; says per order released or not held (its state); one whose earlier send
                     got no clear answer is looked up first and sent again only if the service does not have it.
                     Nothing is sent: submit or serve sends them (exit 1 when a named order was not released)
  log export --format csv|jsonl [--unmask] [--out FILE] [--env ENV] [--clinic-order-id ID]
            [--action ACTION] [--search TEXT]
                     the audit log; clinic order ids masked unless --unmask; the filters are the Log
                     screen's: one environment, the entries of the orders with exactly that clinic order id,
                     an action or its prefix (order. for every order action), text in the clinic code,
                     clinic order id or details (case-insensitive); nothing is written when none matches
  log verify         check the audit log's keyed chain and the head recorded outside the database; names the
                     first entry rewritten, missing or cut off (exit 1)
  retention [--staged-days N|never] [--run] [--vacuum]
                     how long staging copies (imported bodies, provenance, original CSV rows or HL7 messages)
                     are kept once nothing needs them: N days after an order is accepted and finished, or a
                     batch discarded (default 90); --staged-days changes it (audited); --run applies it now
                     (the app does so by itself in the background) and gives the freed space back; --vacuum
                     switches a store made before this version to giving space back (a one-time VACUUM that
                     copies the whole file: it needs that much free disk and holds the store meanwhile)

Options for every command:
  --data-dir DIR     where Rx Batch keeps its data (default: RXBATCH_DATA_DIR, else ${defaultDataDir()})
  --json             machine-readable output
  --verbose          operational log lines on stderr
  --help             this text

Exit codes: 0 done; 1 done, but something needs a person (orders rejected, held or refused a cancel, sign-in,
service warnings or parts not checked, a broken log); 2 usage or input error, or the data directory is in use
by another Rx Batch.
Saved sign-ins and client secrets of the CLI, and its audit key, live in DIR/cli-secrets.json (mode 0600, not
encrypted: the CLI runs unattended, without the desktop keychain).`;
}
