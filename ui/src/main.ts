// The Factdesk window: a navigation of sections and the view of the current location. Each
// section is one entry of SECTIONS and one or more routes of ROUTES. A claim's detail
// (`#/claims/<id>`), review mode (`#/review?collection=<name>`) and a collection's dashboard
// (`#/collections/<name>/dashboard`) belong to the Collections
// section, review mode over a revision's edits (`#/review/revision/<id>`) to Correct and over a
// summary's sources (`#/review/summary/<id>`) to Summaries, a document (`#/documents/<id>`) to
// the Library. Text from the data is always set as
// text (see dom.ts), never as HTML.

import { appInfo, onFilesDropped } from './api';
import { el, replace } from './dom';
import { navigate, startRouter, type Route } from './router';
import { addImportSources, onImportFinished } from './views/import-panel';
import { startIndexRebuild } from './views/index-rebuild';
import { renderCheck } from './views/check';
import { renderClaim } from './views/claim';
import { renderCollections } from './views/collections';
import { renderDashboard } from './views/dashboard';
import { renderCorrect } from './views/correct';
import { renderScores } from './views/scores';
import { renderSummaries } from './views/summaries';
import { describeError } from './views/common';
import { renderDocument } from './views/document';
import { renderLibrary } from './views/library';
import { renderReports } from './views/reports';
import { renderReview } from './views/review';
import { renderOutcomeReview } from './views/outcome-review';
import { renderSearch } from './views/search';
import { renderSettings } from './views/settings';

interface Section {
  id: string;
  label: string;
  hash: string;
}

const SECTIONS: Section[] = [
  { id: 'library', label: 'Library', hash: '#/library' },
  { id: 'search', label: 'Search', hash: '#/search' },
  { id: 'check', label: 'Check', hash: '#/check' },
  { id: 'correct', label: 'Correct', hash: '#/correct' },
  { id: 'summaries', label: 'Summaries', hash: '#/summaries' },
  { id: 'scores', label: 'Scores', hash: '#/scores' },
  { id: 'collections', label: 'Collections', hash: '#/collections' },
  { id: 'reports', label: 'Reports', hash: '#/reports' },
  { id: 'settings', label: 'Settings', hash: '#/settings' },
];

const ROUTES: Route[] = [
  { pattern: /^\/library$/, section: 'library', render: renderLibrary },
  { pattern: /^\/library\/([^/]+)$/, section: 'library', render: renderLibrary },
  { pattern: /^\/documents\/(\d+)$/, section: 'library', render: renderDocument },
  { pattern: /^\/search$/, section: 'search', render: renderSearch },
  { pattern: /^\/check$/, section: 'check', render: renderCheck },
  { pattern: /^\/correct$/, section: 'correct', render: renderCorrect },
  { pattern: /^\/summaries$/, section: 'summaries', render: renderSummaries },
  { pattern: /^\/summaries\/(\d+)$/, section: 'summaries', render: renderSummaries },
  { pattern: /^\/scores$/, section: 'scores', render: renderScores },
  { pattern: /^\/collections$/, section: 'collections', render: renderCollections },
  { pattern: /^\/collections\/([^/]+)$/, section: 'collections', render: renderCollections },
  { pattern: /^\/collections\/([^/]+)\/dashboard$/, section: 'collections', render: renderDashboard },
  { pattern: /^\/claims\/(\d+)$/, section: 'collections', render: renderClaim },
  { pattern: /^\/review$/, section: 'collections', render: renderReview },
  { pattern: /^\/review\/revision\/(\d+)$/, section: 'correct', render: (context) => renderOutcomeReview('revision', context) },
  { pattern: /^\/review\/summary\/(\d+)$/, section: 'summaries', render: (context) => renderOutcomeReview('summary', context) },
  { pattern: /^\/reports$/, section: 'reports', render: renderReports },
  { pattern: /^\/settings$/, section: 'settings', render: renderSettings },
];

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

function buildNavigation(list: HTMLElement): Map<string, HTMLButtonElement> {
  const buttons = new Map<string, HTMLButtonElement>();
  for (const section of SECTIONS) {
    const button = el('button', { type: 'button', 'data-nav': section.id }, section.label);
    button.addEventListener('click', () => navigate(section.hash));
    buttons.set(section.id, button);
    list.append(el('li', {}, button));
  }
  return buttons;
}

async function start(): Promise<void> {
  const buttons = buildNavigation(element('nav-list'));
  const dropHint = element<HTMLElement>('drop-hint');
  const dataDir = element<HTMLElement>('data-dir');

  startRouter(element('outlet'), ROUTES, {
    fallback: '#/library',
    onSection(current) {
      for (const [id, button] of buttons) {
        if (id === current) button.setAttribute('aria-current', 'page');
        else button.removeAttribute('aria-current');
      }
    },
  });

  // An index of an older layout is rebuilt now, its progress shown in the Library.
  startIndexRebuild();

  // Imports change the corpora: show the new counts if the Library is open.
  onImportFinished(() => {
    if (location.hash.startsWith('#/library')) navigate(location.hash);
  });

  // `data-file-drop` says whether dropping files works (the end-to-end tests check it).
  try {
    await onFilesDropped({
      hovering(active) {
        dropHint.hidden = !active;
      },
      dropped(paths) {
        if (!location.hash.startsWith('#/library')) navigate('#/library');
        addImportSources(paths);
      },
    });
    document.documentElement.dataset.fileDrop = 'ready';
  } catch (error) {
    document.documentElement.dataset.fileDrop = 'unavailable';
    console.warn(`dropping files on the window will not work: ${describeError(error)}`);
  }

  try {
    const info = await appInfo();
    replace(dataDir, el('span', { class: 'label' }, 'Data'), ' ', el('code', {}, info.data_dir));
    dataDir.title = info.data_dir;
  } catch (error) {
    dataDir.textContent = describeError(error);
  }
}

void start();
