import { expect, test } from './fixtures.js';
import { callBridge } from './support/bridge-client.js';
import { saveScreenshot } from './support/screenshots.js';
import { chooseBatchFile, escapeRegExp, openSection, openWorkspace, uniqueSuffix } from './support/workspace.js';
import { writeRde011 } from '../../main/core/importing/rde-writer.js';
import { sampleCreateWithClinic } from '../support/orders.js';
import { freePort } from '../support/free-port.js';

// Finding 27 in the app: the Intake screen shows each HL7 profile's sender binding beside the listener's address,
// warns plainly about a sender that is not bound, and sets a binding with the CLI's checks (a bad address refused
// naming it), which the saved profile then holds.

const CONSTANTS = { paymentType: 'Account', courierCode: 'RMT24', currencyCode: 'GBP' };

test("intake: a sender's binding is shown by its listener, an unbound one warned about, and one set on screen is saved", async ({
  app,
  page,
}) => {
  const suffix = uniqueSuffix();
  const open = { name: `Open EPR ${suffix}`, application: `E2E-OPEN-${suffix}`, facility: 'CLINIC-O' };
  const bound = { name: `Bound EPR ${suffix}`, application: `E2E-BIND-${suffix}`, facility: 'CLINIC-B' };
  for (const profile of [open, bound]) {
    await callBridge(app, 'profiles.save', {
      profile: {
        name: profile.name,
        columns: {},
        constants: CONSTANTS,
        valueMaps: {},
        hl7Sender: { application: profile.application, facility: profile.facility, messageType: 'RDE^O11' },
      },
    });
  }
  const port = await freePort();
  try {
    await openWorkspace(page, app, 'Intake');
    const panel = page.getByRole('region', { name: 'Who may send as each sender' });
    await expect(panel).toContainText('Not listening now.');
    const card = (name: string) => panel.getByRole('article', { name: new RegExp(`^${escapeRegExp(name)} `) });

    // An unbound profile says so in plain words.
    await expect(card(open.name)).toContainText(
      `Not bound: any computer that can reach the listener may send as ${open.application}^${open.facility}, for any clinic.`,
    );
    await expect(card(open.name)).toContainText('Any computer');
    await expect(card(open.name)).toContainText('Any clinic');

    // Set on screen: a bad address is refused naming the entry and why, and nothing is saved.
    await card(bound.name)
      .getByRole('button', { name: `Edit binding of ${bound.name}` })
      .click();
    const form = panel.getByRole('form', { name: `Binding of ${bound.name}` });
    const peers = form.getByLabel('Addresses it may connect from');
    await expect(peers).toBeFocused();
    await peers.fill('10.20.0.0/16\n10.20.0.0/33');
    await form.getByLabel('Clinic codes it may order and cancel for').fill('CLINIC-B\n\nCLINIC-C');
    await form.getByRole('button', { name: 'Save binding' }).click();
    await expect(form.getByRole('alert')).toContainText(
      'Peers: "10.20.0.0/33": the prefix length after / is 0 to 32 for an IPv4 block',
    );
    const stored = async (name: string) =>
      (await callBridge(app, 'profiles.list', {})).find((view) => view.name === name)!.profile;
    expect(await stored(bound.name)).not.toHaveProperty('peers');

    await peers.fill('10.20.0.0/16\n::1');
    await form.getByRole('button', { name: 'Save binding' }).click();
    await expect(card(bound.name)).toContainText('10.20.0.0/16, ::1');
    await expect(card(bound.name)).toContainText('CLINIC-B, CLINIC-C');
    await expect(card(bound.name)).not.toContainText('Not bound');
    await expect(card(bound.name).getByRole('button', { name: `Edit binding of ${bound.name}` })).toBeFocused();
    // The saved profile holds the binding, its mapping as it was.
    expect(await stored(bound.name)).toMatchObject({
      constants: CONSTANTS,
      peers: ['10.20.0.0/16', '::1'],
      clinics: ['CLINIC-B', 'CLINIC-C'],
    });

    // Started here, the listener's address is beside the bindings.
    const start = page.getByRole('form', { name: 'Start intake' });
    await start.getByLabel('Port').fill(String(port));
    await start.getByRole('button', { name: 'Start intake' }).click();
    await expect(panel).toContainText(`The listener at 127.0.0.1:${port} takes connections from this computer only.`);
    await page.setViewportSize({ width: 1024, height: 700 });
    await panel.scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'intake-bindings');

    // The HL7 mapping step of a file from that sender says what binds it; saving the mapping there keeps it.
    await openSection(page, 'Import');
    const file = writeRde011(sampleCreateWithClinic({ clinicOrderId: `BIND-${suffix}` }), {
      controlId: `BIND-${suffix}`,
      timestamp: '20261202101500',
      sendingApplication: bound.application,
      sendingFacility: bound.facility,
    });
    await chooseBatchFile(page, `bind-${suffix}.hl7`, file);
    const mapping = page.getByRole('region', { name: 'HL7 mapping' });
    await expect(mapping).toContainText(
      `Live intake: profile '${bound.name}' lets its sender connect only from 10.20.0.0/16, ::1 and act only for ` +
        'CLINIC-B, CLINIC-C. Saving the mapping here keeps that',
    );
    await mapping.getByRole('combobox', { name: 'Constant for Payment type', exact: true }).selectOption('Card');
    await expect(page).toHaveURL(/#\/import\?batch=\d+$/);
    const firstBatch = page.url();
    await mapping.getByRole('button', { name: 'Save profile and import again' }).click();
    // Imported again: the address names the new batch.
    await expect(page).not.toHaveURL(firstBatch);
    await expect(page).toHaveURL(/#\/import\?batch=\d+$/);
    await expect.poll(async () => (await stored(bound.name)).constants).toMatchObject({ paymentType: 'Card' });
    expect(await stored(bound.name)).toMatchObject({
      peers: ['10.20.0.0/16', '::1'],
      clinics: ['CLINIC-B', 'CLINIC-C'],
    });
    await openSection(page, 'Intake');

    // Cleared on screen (both lists emptied): unbound again, and warned about.
    await card(bound.name)
      .getByRole('button', { name: `Edit binding of ${bound.name}` })
      .click();
    await form.getByLabel('Addresses it may connect from').fill('');
    await form.getByLabel('Clinic codes it may order and cancel for').fill('');
    await form.getByRole('button', { name: 'Save binding' }).click();
    await expect(card(bound.name)).toContainText('Not bound: any computer that can reach the listener');
    expect(await stored(bound.name)).not.toHaveProperty('clinics');
  } finally {
    await callBridge(app, 'intake.stop', {});
  }
});
