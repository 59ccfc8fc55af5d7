import { NAME_TAKEN_MESSAGE, RATE_LIMITED_MESSAGE } from '@taco/protocol';
import { errorReason, errorStatus, NETWORK_ERROR_MESSAGE } from './errorText';

describe('error texts of failed calls', () => {
  it('joins the validation texts of a 400', () => {
    const error = {
      status: 400,
      data: {
        statusCode: 400,
        error: 'Bad Request',
        message: ['Your room name is too short', 'Invalid user name'],
      },
    };
    expect(errorReason(error)).toBe('Your room name is too short. Invalid user name');
    expect(errorStatus(error)).toBe(400);
  });

  it('uses the message of a 409', () => {
    expect(
      errorReason({
        status: 409,
        data: { statusCode: 409, error: 'Conflict', message: NAME_TAKEN_MESSAGE },
      }),
    ).toBe(NAME_TAKEN_MESSAGE);
  });

  it('explains a 429 and a network failure', () => {
    expect(errorReason({ status: 429, data: null })).toBe(RATE_LIMITED_MESSAGE);
    expect(errorReason({ status: 'FETCH_ERROR', error: 'TypeError' })).toBe(NETWORK_ERROR_MESSAGE);
    expect(errorStatus({ status: 'FETCH_ERROR', error: 'TypeError' })).toBeNull();
    expect(errorReason({ status: 502, data: '<html>' })).toBe('The server answered 502.');
  });
});
