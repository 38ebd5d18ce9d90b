// The two Tauri facilities the UI uses besides its commands: the file dialogs and files
// dropped on the window.

import { getCurrentWebview } from '@tauri-apps/api/webview';
import { open, save } from '@tauri-apps/plugin-dialog';

import { CLAIM_FILE_EXTENSIONS, IMPORTED_EXTENSIONS } from '../bindings/ImportedExtensions';
import { asCommandError } from './transport';

/** Lets the user pick files (or, with `folders`, folders) to import; [] if they cancel. */
export async function chooseImportSources(folders: boolean): Promise<string[]> {
  try {
    const picked = await open({
      title: folders ? 'Folders to import' : 'Files to import',
      multiple: true,
      directory: folders,
      filters: folders ? undefined : [{ name: 'Documents', extensions: [...IMPORTED_EXTENSIONS] }],
    });
    return picked ?? [];
  } catch (error) {
    throw asCommandError(error);
  }
}

/** Lets the user pick one claims file; null if they cancel. */
export async function chooseClaimsFile(): Promise<string | null> {
  try {
    return await open({
      title: 'Claims file to import',
      multiple: false,
      directory: false,
      // The claims files `import_claims` reads: the core's list (generated).
      filters: [{ name: 'Claims', extensions: [...CLAIM_FILE_EXTENSIONS] }],
    });
  } catch (error) {
    throw asCommandError(error);
  }
}

/** Asks where to save a report, suggesting `fileName`; null if the user cancels. */
export async function chooseReportPath(fileName: string, extension: string): Promise<string | null> {
  try {
    return await save({
      title: 'Save the report',
      defaultPath: fileName,
      filters: [{ name: `${extension.toUpperCase()} report`, extensions: [extension] }],
    });
  } catch (error) {
    throw asCommandError(error);
  }
}

export interface DropHandlers {
  /** Files are being dragged over the window (true) or no longer are (false). */
  hovering(active: boolean): void;
  /** Files were dropped: their paths. */
  dropped(paths: string[]): void;
}

/** Calls `handlers` when files are dragged over or dropped on the window. */
export async function onFilesDropped(handlers: DropHandlers): Promise<() => void> {
  return getCurrentWebview().onDragDropEvent((event) => {
    const payload = event.payload;
    switch (payload.type) {
      case 'enter':
      case 'over':
        handlers.hovering(true);
        break;
      case 'leave':
        handlers.hovering(false);
        break;
      case 'drop':
        handlers.hovering(false);
        if (payload.paths.length > 0) handlers.dropped(payload.paths);
        break;
    }
  });
}
