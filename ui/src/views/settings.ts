// Settings: which chat model answers (and whether that works offline) with a "Check model"
// button, what each model server asked so far has shown it takes of shaped answers (JSON
// Schema, llama.cpp's grammar), a form for the settings people change most (the model's
// provider, server — with Ollama's usual address a click away — and name, shaped answers on or
// off, offline mode, the local hosts pages may be fetched from), where the app keeps its files,
// and every setting in effect. Saving writes only the changed keys into the settings file; the
// backend checks them first and refuses an invalid value (shown next to the form) without
// writing anything. Other settings are changed in the file or with FACTDESK_* variables.

import {
  NLI_CHOICES,
  appInfo,
  checkModel,
  getSettings,
  saveSettings,
  type AppInfo,
  type ModelChoice,
  type SettingChange,
  type SettingsView,
} from '../api';
import { el, replace } from '../dom';
import type { RouteContext } from '../router';
import { describeError, facts, showError, statusLine } from './common';

const PROVIDERS: Array<{ value: string; label: string }> = [
  { value: 'auto', label: 'Automatic — the server below when a base URL is set, else the embedded model' },
  { value: 'embedded', label: 'Embedded model (llama.cpp, inside this app)' },
  { value: 'openai-compatible', label: 'OpenAI-compatible server (Ollama, llama.cpp server, vLLM, OpenAI…)' },
];

/** Ollama's OpenAI-compatible address on this computer (its default port). */
const OLLAMA_BASE_URL = 'http://localhost:11434/v1';

type ServerSupport = SettingsView['constraints'][number];

/** What a server showed of one kind of output constraint, in words. */
const SUPPORT_WORDS: Record<ServerSupport['json_schema'], string> = {
  not_tried: 'not tried yet',
  accepted: 'accepted',
  refused: 'refused — answers are read as free text',
  ignored: 'ignored — answers are read as free text',
};

/** A server's support of JSON Schemas, with the form they go in when it is llama-cpp-python's. */
function schemaWords(support: ServerSupport): string {
  const words = SUPPORT_WORDS[support.json_schema];
  return support.json_schema === 'accepted' && support.schema_form === 'json_object' ? `${words} (llama-cpp-python's form)` : words;
}

/**
 * What the model servers asked since the app started have shown they take of shaped answers,
 * per server and model (the selected one first); found out from their answers, not assumed.
 */
function constraintsPanel(view: SettingsView): HTMLElement {
  const intro = el(
    'p',
    { class: 'hint' },
    view.settings.llm.shaped_answers
      ? 'Prompts whose answer has a shape ask the server for it: a grammar (llama.cpp) or a JSON Schema. What each server takes is found out from its answers while the app runs; one that refuses or ignores a shape is not asked for it again.'
      : 'Shaped answers are switched off: every answer is read as free text.',
  );
  if (view.constraints.length === 0) {
    return el('div', { id: 'settings-constraints' }, el('h3', {}, 'Shaped answers'), intro, el('p', { class: 'hint' }, 'No model server asked yet (the embedded model holds its answers to grammars itself).'));
  }
  const rows = view.constraints.map((support) =>
    el(
      'tr',
      {},
      el('td', {}, support.base_url),
      el('td', {}, support.model),
      el('td', {}, schemaWords(support)),
      el('td', {}, SUPPORT_WORDS[support.grammar]),
    ),
  );
  return el(
    'div',
    { id: 'settings-constraints' },
    el('h3', {}, 'Shaped answers'),
    intro,
    el(
      'table',
      { class: 'constraints-table' },
      el('thead', {}, el('tr', {}, el('th', {}, 'Server'), el('th', {}, 'Model'), el('th', {}, 'JSON Schema'), el('th', {}, 'Grammar'))),
      el('tbody', {}, ...rows),
    ),
  );
}

const CACHE_MODES: Record<string, string> = {
  'read-write': 'read-write — an identical request is answered from the record of the earlier call',
  off: 'off — every request goes to the model',
  'replay-only': 'replay-only — answers come only from recorded calls; the model is never asked',
};

function modelFacts(model: ModelChoice, settings: SettingsView['settings']): HTMLDListElement {
  const cache = settings.llm.cache;
  if (model.provider === 'embedded') {
    return facts([
      ['Provider', 'Embedded (llama.cpp, inside this app)'],
      ['Model file', model.path],
      ['Runs offline', 'Yes: the model runs on this computer.'],
      ['Recorded calls', CACHE_MODES[cache] ?? cache],
    ]);
  }
  return facts([
    ['Provider', 'OpenAI-compatible server'],
    ['Server', model.base_url || '(none set)'],
    ['Model', model.model || '(none set)'],
    ['API key', model.has_api_key ? 'set (not shown)' : 'not set'],
    ['Runs offline', 'Only if this server runs on this computer or your own network.'],
    ['Recorded calls', CACHE_MODES[cache] ?? cache],
  ]);
}

/** A setting's value as text: lists joined with commas, nested tables as `key: value` pairs. */
function settingText(value: unknown): string {
  if (Array.isArray(value)) return value.map(settingText).join(', ');
  if (value !== null && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${key}: ${settingText(inner)}`)
      .join('; ');
  }
  if (value === '') return '""';
  return String(value);
}

/** A table of settings and its sub-tables, each as `[name]` with its plain keys (as TOML writes them). */
function settingSections(name: string, values: Record<string, unknown>): HTMLElement[] {
  const isTable = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  const plain = Object.entries(values).filter(([, value]) => !isTable(value));
  const tables = Object.entries(values).filter((entry): entry is [string, Record<string, unknown>] => isTable(entry[1]));
  const own = plain.length === 0
    ? []
    : [
        el(
          'section',
          {},
          el('h3', {}, el('code', {}, `[${name}]`)),
          facts(plain.map(([key, value]): [string, string] => [key, settingText(value)]), 'facts settings-table'),
        ),
      ];
  return [...own, ...tables.flatMap(([key, table]) => settingSections(`${name}.${key}`, table))];
}

function allSettings(settings: SettingsView['settings']): HTMLElement {
  return el(
    'div',
    { class: 'all-settings' },
    ...Object.entries(settings).flatMap(([section, values]) => settingSections(section, values as Record<string, unknown>)),
  );
}

function checkPanel(): HTMLElement {
  const button = el('button', { type: 'button', id: 'check-model', class: 'primary' }, 'Check model');
  const result = el('div', { id: 'model-check-result', role: 'status' });
  button.addEventListener('click', async () => {
    button.disabled = true;
    result.className = 'checking';
    replace(result, el('p', { class: 'status' }, 'Asking the model for a one-word answer… (a model file may take a while to load)'));
    try {
      const check = await checkModel();
      result.className = 'ok';
      replace(
        result,
        el('p', { class: 'status ok' }, 'The model answered.'),
        facts([
          ['Answer', check.answer || '(empty)'],
          ['Time', `${check.latency_ms.toLocaleString()} ms`],
          ['Tokens', `${check.prompt_tokens} in, ${check.completion_tokens} out`],
          ...(check.constraints
            ? [['Shaped answers', `JSON Schema ${schemaWords(check.constraints)}; grammar ${SUPPORT_WORDS[check.constraints.grammar]}`] as [string, string]]
            : []),
        ]),
      );
    } catch (error) {
      result.className = 'failed';
      replace(result, el('p', { class: 'status error' }, `The model did not answer: ${describeError(error)}`));
    } finally {
      button.disabled = false;
    }
  });
  return el('div', { class: 'check-model' }, button, result);
}

/** The lines of a text box, trimmed, empty ones left out. */
function lines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** The key of a ZIM file whose metadata names its Wikipedia edition (Rust's ZIM_EDITION_FROM_FILE). */
const ZIM_FROM_FILE = '*';

/** `fetch.wikipedia_zim` as lines: `path` for a file naming its own edition, else `en = path`. */
function zimLines(files: Partial<Record<string, string>>): string[] {
  return Object.entries(files)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([edition, path]) => (edition.startsWith(ZIM_FROM_FILE) ? path : `${edition} = ${path}`));
}

/**
 * The lines of the ZIM box as the setting's table: `en = path` names the edition; a path alone
 * is a file whose metadata names it (keys `*`, `*2`, … as the setting takes several).
 */
function zimTable(text: string): Record<string, string> {
  const table: Record<string, string> = {};
  let unnamed = 0;
  for (const line of lines(text)) {
    const [, edition, path] = line.match(/^([a-z0-9-]{2,20})\s*=\s*(.+)$/i) ?? [];
    if (edition !== undefined && path !== undefined) table[edition.toLowerCase()] = path.trim();
    else {
      unnamed += 1;
      table[unnamed === 1 ? ZIM_FROM_FILE : `${ZIM_FROM_FILE}${unnamed}`] = line;
    }
  }
  return table;
}

/**
 * The settings form. `saved` is called with the settings in effect after a successful save;
 * after a refused one the form keeps what the user typed and shows why next to it.
 */
function settingsForm(view: SettingsView, saved: (view: SettingsView) => void): HTMLElement {
  const { llm, fetch, verify, publish } = view.settings;
  const hasKey = view.model.provider === 'openai-compatible' && view.model.has_api_key;
  const provider = el(
    'select',
    { id: 'settings-provider', name: 'provider' },
    ...PROVIDERS.map((choice) => el('option', { value: choice.value, selected: choice.value === llm.provider }, choice.label)),
  );
  if (!PROVIDERS.some((choice) => choice.value === llm.provider)) {
    provider.append(el('option', { value: llm.provider, selected: true }, llm.provider));
  }
  // `verify.nli`: what judges whether evidence supports a claim (the core's NLI_CHOICES).
  const nli = el(
    'select',
    { id: 'settings-nli', name: 'nli' },
    ...NLI_CHOICES.map((choice) => el('option', { value: choice.value, selected: choice.value === verify.nli }, choice.label)),
  );
  if (!NLI_CHOICES.some((choice) => choice.value === verify.nli)) {
    nli.append(el('option', { value: verify.nli, selected: true }, verify.nli));
  }
  const baseUrl = el('input', { id: 'settings-base-url', name: 'base_url', type: 'text', value: llm.base_url, spellcheck: 'false', placeholder: 'e.g. http://localhost:11434/v1' });
  const ollama = el('button', { type: 'button', id: 'settings-use-ollama' }, 'Use Ollama on this computer');
  ollama.addEventListener('click', () => {
    baseUrl.value = OLLAMA_BASE_URL;
    provider.value = 'openai-compatible';
  });
  const model = el('input', { id: 'settings-model', name: 'model', type: 'text', value: llm.model, spellcheck: 'false', placeholder: 'e.g. llama3.2:3b' });
  const shaped = el('input', { id: 'settings-shaped-answers', name: 'shaped_answers', type: 'checkbox', checked: llm.shaped_answers });
  const apiKey = el('input', {
    id: 'settings-api-key',
    name: 'api_key',
    type: 'password',
    autocomplete: 'off',
    placeholder: hasKey ? 'A key is saved (not shown); type a new one to replace it' : 'None; only if the server needs one',
  });
  const forgetKey = el('input', { id: 'settings-forget-key', type: 'checkbox', name: 'forget_key' });
  const offline = el('input', { id: 'settings-offline', name: 'offline', type: 'checkbox', checked: fetch.offline });
  const allowHosts = el('textarea', { id: 'settings-allow-hosts', name: 'allow_hosts', rows: 3, spellcheck: 'false', placeholder: 'One per line, e.g. localhost or 10.0.0.5:8080' });
  // The default value (not just the value), so that "Undo changes" puts the saved list back.
  allowHosts.defaultValue = fetch.allow_hosts.join('\n');
  const wikipediaZim = el('textarea', {
    id: 'settings-wikipedia-zim',
    name: 'wikipedia_zim',
    rows: 2,
    spellcheck: 'false',
    placeholder: 'e.g. /data/wikipedia_en_all_nopic.zim, or one per edition: de = /data/wikipedia_de.zim',
  });
  wikipediaZim.defaultValue = zimLines(fetch.wikipedia_zim).join('\n');
  const staleAfter = el('input', { id: 'settings-stale-after', name: 'stale_after_days', type: 'number', min: '0', step: '1', value: String(verify.stale_after_days) });
  const newsroom = el('input', { id: 'settings-newsroom', name: 'newsroom', type: 'text', value: publish.newsroom, placeholder: 'e.g. The Daily Check' });
  const newsroomUrl = el('input', { id: 'settings-newsroom-url', name: 'newsroom_url', type: 'url', value: publish.url, spellcheck: 'false', placeholder: 'e.g. https://dailycheck.example/' });
  const save = el('button', { type: 'submit', id: 'settings-save', class: 'primary' }, 'Save');
  const reset = el('button', { type: 'reset', id: 'settings-reset' }, 'Undo changes');
  const status = el('p', { class: 'status', id: 'settings-form-status', role: 'status', 'aria-live': 'polite' });

  const changes = (): SettingChange[] => {
    const list: SettingChange[] = [];
    if (provider.value !== llm.provider) list.push({ key: 'llm.provider', value: provider.value });
    if (baseUrl.value.trim() !== llm.base_url) list.push({ key: 'llm.base_url', value: baseUrl.value.trim() });
    if (model.value.trim() !== llm.model) list.push({ key: 'llm.model', value: model.value.trim() });
    if (shaped.checked !== llm.shaped_answers) list.push({ key: 'llm.shaped_answers', value: shaped.checked });
    if (apiKey.value !== '') list.push({ key: 'llm.api_key', value: apiKey.value });
    else if (forgetKey.checked) list.push({ key: 'llm.api_key', value: null });
    if (nli.value !== verify.nli) list.push({ key: 'verify.nli', value: nli.value });
    if (offline.checked !== fetch.offline) list.push({ key: 'fetch.offline', value: offline.checked });
    const hosts = lines(allowHosts.value);
    if (!sameList(hosts, fetch.allow_hosts)) list.push({ key: 'fetch.allow_hosts', value: hosts });
    const zims = zimTable(wikipediaZim.value);
    if (!sameList(zimLines(zims), zimLines(fetch.wikipedia_zim))) list.push({ key: 'fetch.wikipedia_zim', value: zims });
    const staleDays = staleAfter.valueAsNumber;
    if (staleDays !== verify.stale_after_days) list.push({ key: 'verify.stale_after_days', value: Number.isInteger(staleDays) && staleDays >= 0 ? staleDays : staleAfter.value });
    if (newsroom.value.trim() !== publish.newsroom) list.push({ key: 'publish.newsroom', value: newsroom.value.trim() });
    if (newsroomUrl.value.trim() !== publish.url) list.push({ key: 'publish.url', value: newsroomUrl.value.trim() });
    return list;
  };

  const row = (label: string, id: string, control: HTMLElement, hint?: string) =>
    el('div', { class: 'option-row' }, el('label', { for: id }, label), el('div', { class: 'option-control' }, control, hint ? el('p', { class: 'hint' }, hint) : null));

  const form = el(
    'form',
    { class: 'settings-form', id: 'settings-form', 'aria-describedby': 'settings-form-status' },
    el(
      'div',
      { class: 'options-grid' },
      row('Provider', 'settings-provider', provider),
      row(
        'Server base URL',
        'settings-base-url',
        el('div', { class: 'inline-controls' }, baseUrl, ollama),
        `The OpenAI-compatible API, ending in /v1: Ollama's is ${OLLAMA_BASE_URL}. FACTDESK_LLM_BASE_URL overrides it.`,
      ),
      row('Model', 'settings-model', model, 'As the server names it; Ollama’s names carry a tag after a colon (llama3.2:3b), and a model must be pulled first (ollama pull llama3.2:3b).'),
      el(
        'div',
        { class: 'option-row' },
        el('span', { class: 'row-label' }, 'Shaped answers'),
        el(
          'div',
          { class: 'option-control' },
          el('label', { class: 'checkbox' }, shaped, ' Ask the server for answers of a fixed shape (a JSON Schema, or llama.cpp’s grammar) where it takes them'),
        ),
      ),
      row('API key', 'settings-api-key', apiKey),
      hasKey
        ? el('div', { class: 'option-row' }, el('span', {}, ''), el('label', { class: 'checkbox' }, forgetKey, ' Remove the saved key'))
        : null,
      row(
        'Evidence judge (NLI)',
        'settings-nli',
        nli,
        'What decides whether evidence supports a claim. Automatic: the Factdesk verifier with the embedded model, the chat model with a server. Each check records the judge it used.',
      ),
      el(
        'div',
        { class: 'option-row' },
        el('span', { class: 'row-label' }, 'Web pages'),
        el(
          'div',
          { class: 'option-control' },
          el('label', { class: 'checkbox' }, offline, ' Offline: serve pages only from the archive of pages fetched before; fetch nothing'),
        ),
      ),
      row(
        'Local hosts allowed',
        'settings-allow-hosts',
        allowHosts,
        'Pages on this computer or private networks are refused unless their host is listed here (host or address, optionally :port).',
      ),
      row(
        'Wikipedia ZIM files',
        'settings-wikipedia-zim',
        wikipediaZim,
        'Wikipedia articles are read from these files (Kiwix’s offline Wikipedia) instead of the network, also offline. A path alone: its edition is read from the file. A relative path is read from the data folder.',
      ),
      row(
        'Old evidence (days)',
        'settings-stale-after',
        staleAfter,
        'Evidence published more than this many days before a claim’s date is flagged as possibly out of date, in the claim view and in reports. Claims without a date are not compared; 0 flags nothing.',
      ),
      row('Newsroom', 'settings-newsroom', newsroom, 'The author of every ClaimReview you export; the export asks for it.'),
      row('Newsroom site', 'settings-newsroom-url', newsroomUrl, 'Its web address (http or https), named beside it in ClaimReview.'),
    ),
    el('div', { class: 'buttons' }, save, reset),
    status,
  );
  form.addEventListener('reset', () => {
    status.classList.remove('error', 'ok');
    status.textContent = '';
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    status.classList.remove('error', 'ok');
    const list = changes();
    if (list.length === 0) {
      status.textContent = 'Nothing has changed.';
      return;
    }
    save.disabled = true;
    status.textContent = 'Saving…';
    try {
      const updated = await saveSettings(list);
      saved(updated);
    } catch (error) {
      status.setAttribute('role', 'alert');
      showError(status, error);
      status.prepend('Not saved — nothing was changed: ');
      save.disabled = false;
    }
  });
  return form;
}

function draw(outlet: HTMLElement, info: AppInfo, view: SettingsView, message: string): void {
  const status = statusLine('settings-status');
  const form = settingsForm(view, (updated) => {
    draw(outlet, info, updated, `Saved to ${info.config_file}. The new settings are in effect.`);
  });
  if (message) {
    status.classList.add('ok');
    status.textContent = message;
  }
  replace(
    outlet,
    el('h1', {}, 'Settings'),
    status,
    el(
      'section',
      { class: 'panel', 'aria-labelledby': 'model-heading' },
      el('h2', { id: 'model-heading' }, 'Chat model'),
      modelFacts(view.model, view.settings),
      checkPanel(),
      constraintsPanel(view),
    ),
    el('section', { class: 'panel', 'aria-labelledby': 'edit-heading' }, el('h2', { id: 'edit-heading' }, 'Change settings'), form),
    el(
      'section',
      { class: 'panel' },
      el('h2', {}, 'Files'),
      facts([
        ['Version', info.version],
        ['Data directory', info.data_dir],
        ['Settings file', info.config_file],
        ['Logs', info.log_dir],
      ]),
      el(
        'p',
        { class: 'hint' },
        'The form above writes only what you change into the settings file. Other settings go in that file by hand (then restart the app). ',
        'FACTDESK_LLM_BASE_URL, FACTDESK_LLM_MODEL and FACTDESK_LLM_API_KEY override the model settings.',
      ),
    ),
    el('section', { class: 'panel' }, el('h2', {}, 'Every setting in effect'), allSettings(view.settings)),
  );
}

export async function renderSettings({ outlet, signal }: RouteContext): Promise<void> {
  const status = statusLine('settings-status');
  replace(outlet, el('h1', {}, 'Settings'), status);
  status.textContent = 'Loading…';
  let info: AppInfo;
  let view: SettingsView;
  try {
    [info, view] = await Promise.all([appInfo(), getSettings()]);
  } catch (error) {
    if (!signal.aborted) showError(status, error);
    return;
  }
  if (signal.aborted) return;
  draw(outlet, info, view, '');
}
